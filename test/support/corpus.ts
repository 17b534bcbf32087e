/**
 * Real files for tests, from Debian packages unpacked by scripts/corpus.sh (forensics-samples-files,
 * python3-skimage and desktop-base). Importing this module downloads the corpus once if it is missing.
 */
import { execFileSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join, resolve } from 'node:path';

const repoRoot = resolve(import.meta.dirname, '..', '..');
export const corpusDir = resolve(repoRoot, process.env.PRESSO_CORPUS_DIR ?? '.corpus');

const forensics = join(corpusDir, 'usr/share/forensics-samples/original-files');
const skimage = join(corpusDir, 'usr/lib/python3/dist-packages/skimage/data');
const desktopBase = join(corpusDir, 'usr/share/desktop-base');

export const corpus = {
  /** 4000×3000 Xiaomi Mi A3 photo with EXIF and a GPS position (15°50′S, 48°00′W). */
  gpsPhoto: join(forensics, 'pic1/IMG_20200827_231612.jpg'),
  /** 4000×3000 phone photo whose EXIF Orientation is 3 (rotate 180°). */
  rotatedPhoto: join(forensics, 'pic2/IMG_20200124_231153.jpg'),
  /** 1280×960 Canon SX530 photo with EXIF and an embedded ICC profile, no GPS. */
  canonPhoto: join(forensics, 'pic1/IMG_1054.JPG'),
  /** 512×512 RGB PNG (skimage test image). */
  astronaut: join(skimage, 'astronaut.png'),
  /** 451×300 RGB PNG (skimage test image). */
  chelsea: join(skimage, 'chelsea.png'),
  /** 800×600 RGBA PNG (Debian logo) with real transparency. */
  alphaPng: join(forensics, 'pic1/debian.png'),
  /** 500×500 RGBA illustration (skimage logo): flat colours, soft edges, transparency. */
  alphaIllustration: join(skimage, 'logo.png'),
  /** 1920×1080 flat gradient wallpaper (Debian futureprototype GRUB background), 344 colours, RGB. */
  flatWallpaper: join(desktopBase, 'futureprototype-theme/grub/grub-16x9.png'),
  /** 1920×1080 gradient wallpaper with the Debian swirl (joy GRUB background), 1,235 colours, RGB. */
  gradientWallpaper: join(desktopBase, 'joy-theme/grub/grub-16x9.png'),
  /** 504×502 palette PNG with tRNS (Debian moonlight boot glow): 49 colours, soft transparency. */
  paletteAlphaPng: join(corpusDir, 'usr/share/plymouth/themes/moonlight/glow.png'),
  /** 320×240 palette PNG. */
  palettePng: join(skimage, 'green_palette.png'),
  /** 14×25 animated GIF with 24 frames. */
  animatedGif: join(skimage, 'no_time_for_that_tiny.gif'),
  /** A JPEG cut off in the middle of its image data. */
  truncatedJpeg: join(skimage, 'truncated.jpg'),
  pdf: join(forensics, 'text1/a-text.pdf'),
  docx: join(forensics, 'text1/a-text.docx'),
  odt: join(forensics, 'text1/a-text.odt'),
  mp4: join(forensics, 'movie2/movie-hello.mp4'),
  ogv: join(forensics, 'movie2/movie-hello.ogg'),
  oggAudio: join(forensics, 'audio1/debian.ogg'),
  mp3: join(forensics, 'audio1/debian.mp3'),
  wav: join(forensics, 'audio1/debian.wav'),
  /** GIMP's native format: real, but no service format. */
  xcf: join(forensics, 'pic1/debian.xcf'),
} as const;

function ensureCorpus(): void {
  if (Object.values(corpus).every((path) => existsSync(path))) return;
  execFileSync('bash', [join(repoRoot, 'scripts/corpus.sh')], {
    cwd: repoRoot,
    env: { ...process.env, PRESSO_CORPUS_DIR: corpusDir },
    stdio: ['ignore', 'ignore', 'inherit'],
  });
  const missing = Object.values(corpus).filter((path) => !existsSync(path));
  if (missing.length > 0)
    throw new Error(`corpus files missing after scripts/corpus.sh: ${missing.join(', ')}`);
}

ensureCorpus();
