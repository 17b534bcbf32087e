/**
 * The benchmark's files, from the corpus that scripts/corpus.sh unpacks from scripts/corpus/bench-images.txt
 * (every file named here comes from one of those Debian packages; docs/benchmarks.md lists them by kind).
 * `quick` takes a smaller set. Each PNG carries the kind it stands for, so rows can be read by kind.
 */
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

const FORENSICS = 'usr/share/forensics-samples/original-files';
const SKIMAGE = 'usr/lib/python3/dist-packages/skimage/data';
const IM_DOC = 'usr/share/doc/imagemagick-6-common/html/images';
const HANDBOOK = 'usr/share/doc/debian-handbook/html/en-US/images';
const GNOME_HELP = 'usr/share/help/C/gnome-help/figures';
const OXYGEN = 'usr/share/icons/oxygen/base/256x256';

/** PNG inputs: path under the corpus, and what kind of PNG it is (colour tags in brackets). */
const PNGS: { path: string; kind: string; quick?: boolean }[] = [
  { path: `${SKIMAGE}/astronaut.png`, kind: 'photo [iCCP]', quick: true },
  { path: `${SKIMAGE}/coffee.png`, kind: 'photo' },
  { path: `${SKIMAGE}/chelsea.png`, kind: 'photo [iCCP]' },
  { path: `${FORENSICS}/pic1/debian.png`, kind: 'logo, alpha' },
  { path: `${SKIMAGE}/logo.png`, kind: 'illustration 500², alpha', quick: true },
  { path: 'usr/share/plymouth/themes/spacefun/swirlaxy.png', kind: 'illustration, alpha' },
  { path: `${OXYGEN}/places/folder.png`, kind: 'icon 256², alpha [sRGB]' },
  { path: `${OXYGEN}/mimetypes/video-x-ms-wmv.png`, kind: 'icon 256², alpha [sRGB]' },
  { path: 'usr/share/filezilla/resources/default/480x480/speedlimits.png', kind: 'icon, palette + tRNS' },
  { path: 'usr/share/desktop-base/debian-logos/logo-256.png', kind: 'logo, palette + tRNS' },
  { path: 'usr/share/backgrounds/mate/desktop/Float-into-MATE.png', kind: 'wallpaper, alpha [iCCP]' },
  { path: 'usr/share/backgrounds/mate/desktop/MATE-Stripes-Dark.png', kind: 'wallpaper, alpha' },
  { path: 'usr/share/backgrounds/mate/desktop/MATE-Stripes-Light.png', kind: 'wallpaper, alpha' },
  { path: 'usr/share/desktop-base/moonlight-theme/grub/grub-16x9.png', kind: 'flat wallpaper 1920×1080' },
  { path: 'usr/share/plymouth/themes/moonlight/background.png', kind: 'flat wallpaper 1920×1080, palette' },
  { path: `${HANDBOOK}/gnome.png`, kind: 'screenshot', quick: true },
  { path: `${HANDBOOK}/synaptic.png`, kind: 'screenshot' },
  { path: `${GNOME_HELP}/screenshot-tool.png`, kind: 'screenshot, palette [iCCP]' },
  { path: `${GNOME_HELP}/shell-exit-expanded.png`, kind: 'screenshot, alpha [iCCP]' },
  { path: `${IM_DOC}/julia-set.png`, kind: 'render [gAMA, cHRM]' },
  { path: `${IM_DOC}/t-shirt.png`, kind: 'photo cut-out, alpha [gAMA, sRGB, cHRM]' },
  { path: 'usr/share/wallpapers/Shell/contents/screenshot.png', kind: 'preview [gAMA, cHRM]' },
  { path: 'usr/share/wallpapers/Altai/contents/screenshot.png', kind: 'preview [gAMA, iCCP, cHRM]' },
];

/** PNG inputs that also go through WebP, AVIF and `auto` (alpha, screenshot, photo). */
const LOSSY_PNGS = [`${SKIMAGE}/astronaut.png`, `${FORENSICS}/pic1/debian.png`, `${HANDBOOK}/gnome.png`];

export function benchSample(C: string, quick: boolean) {
  const at = (p: string) => join(C, p);
  const nature = files(at('usr/share/backgrounds/mate/nature'), /\.jpg$/i);
  const photos = [
    ...nature.slice(0, quick ? 1 : 4),
    at(`${FORENSICS}/pic1/IMG_20200827_231612.jpg`),
    ...(quick
      ? []
      : [
          at(`${FORENSICS}/pic2/IMG_20200608_111614.jpg`),
          at(`${FORENSICS}/pic1/IMG_1054.JPG`), // ICC profile
          at(`${FORENSICS}/pic2/d-debian.jpg`), // ICC profile
          at('usr/share/wallpapers/Path/contents/images/1920x1080.jpg'), // ICC profile
        ]),
  ];
  const pngs = PNGS.filter((p) => !quick || p.quick).map((p) => ({ file: at(p.path), kind: p.kind }));
  const webps = files(at('usr/share/backgrounds/gnome'), /\.webp$/i).slice(0, quick ? 1 : 3);
  // Converted to WebP and AVIF, and through `auto`: photos, WebP wallpapers and a few PNG kinds.
  const lossy = quick
    ? [at(LOSSY_PNGS[0]!)]
    : [...photos.slice(0, 3), photos[photos.length - 1]!, ...webps, ...LOSSY_PNGS.map(at)];
  const svgs = [
    ...files(at('usr/share/desktop-base/emerald-theme/wallpaper/contents/images'), /\.svg$/i),
    ...files(at(IM_DOC), /\.svg$/i),
  ].slice(0, quick ? 4 : 12);
  const gifs = files(at(IM_DOC), /\.gif$/i).slice(0, quick ? 3 : 7);
  return { photos, pngs, webps, lossy, svgs, gifs };
}

/** The kind of a PNG input, by file name, for its rows. */
export const KIND_OF = new Map(PNGS.map((p) => [p.path.split('/').pop()!, p.kind]));
