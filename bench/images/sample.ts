/** The benchmark's files, chosen from the corpus that scripts/corpus.sh unpacks from scripts/corpus/bench-images.txt (`quick`: a smaller set). */
import { existsSync, readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';

const files = (dir: string, re: RegExp) =>
  existsSync(dir)
    ? readdirSync(dir)
        .filter((f) => re.test(f))
        .map((f) => join(dir, f))
        .filter((f) => statSync(f).isFile())
        .sort()
    : [];

export function benchSample(C: string, quick: boolean) {
  const forensics = join(C, 'usr/share/forensics-samples/original-files');
  const skimage = join(C, 'usr/lib/python3/dist-packages/skimage/data');
  const images = join(C, 'usr/share/doc/imagemagick-6-common/html/images');
  const photos = [
    ...files(join(C, 'usr/share/backgrounds/mate/nature'), /\.jpg$/i).slice(0, quick ? 2 : 4),
    join(forensics, 'pic1/IMG_20200827_231612.jpg'),
    ...(quick ? [] : [join(forensics, 'pic2/IMG_20200608_111614.jpg'), join(forensics, 'pic1/IMG_1054.JPG')]),
  ];
  const pngs = [
    join(skimage, 'astronaut.png'),
    join(skimage, 'coffee.png'),
    ...(quick ? [] : [join(skimage, 'chelsea.png'), join(forensics, 'pic1/debian.png')]),
    ...files(join(C, 'usr/share/backgrounds/mate/desktop'), /\.png$/i).slice(0, quick ? 1 : 3),
  ];
  const webps = files(join(C, 'usr/share/backgrounds/gnome'), /\.webp$/i).slice(0, quick ? 1 : 3);
  const svgs = [
    ...files(join(C, 'usr/share/desktop-base/emerald-theme/wallpaper/contents/images'), /\.svg$/i),
    ...files(images, /\.svg$/i),
  ].slice(0, quick ? 4 : 12);
  const gifs = files(images, /\.gif$/i).slice(0, quick ? 3 : 7);
  return { photos, pngs, webps, svgs, gifs };
}
