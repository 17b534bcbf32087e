/**
 * The corpus images of the metric's reference pairs (bench/metric/make-pairs.ts), where each is cropped and
 * which encoders distort it: photos, PNG graphics (a scanned page, text, a palette image), and images with
 * alpha (screenshots of a logo on transparency, an icon, a silhouette).
 */
import { avif, type Distortion, jpeg, pngquant, webp } from './distortions.ts';

export const skimage = 'usr/lib/python3/dist-packages/skimage/data';
const forensics = 'usr/share/forensics-samples/original-files';

export interface Source {
  name: string;
  path: string;
  kind: 'photo' | 'graphic' | 'alpha';
  left?: number;
  top?: number;
  distortions: Distortion[];
}

export const SOURCES: Source[] = [
  {
    name: 'coffee',
    path: `${skimage}/coffee.png`,
    kind: 'photo',
    left: 200,
    top: 60,
    distortions: [jpeg(30), webp(50), avif(40), pngquant(64)],
  },
  {
    name: 'astronaut',
    path: `${skimage}/astronaut.png`,
    kind: 'photo',
    left: 128,
    top: 40,
    distortions: [jpeg(70), webp(80), avif(25), jpeg(90, '4:4:4')],
  },
  {
    name: 'chelsea',
    path: `${skimage}/chelsea.png`,
    kind: 'photo',
    left: 100,
    top: 20,
    distortions: [jpeg(50), webp(30), avif(50), pngquant(128)],
  },
  {
    name: 'rocket',
    path: `${skimage}/rocket.jpg`,
    kind: 'photo',
    left: 200,
    top: 100,
    distortions: [jpeg(85), webp(90), avif(35)],
  },
  {
    name: 'motorcycle',
    path: `${skimage}/motorcycle_left.png`,
    kind: 'photo',
    left: 240,
    top: 120,
    distortions: [jpeg(40), webp(65), avif(30)],
  },
  {
    name: 'canon',
    path: `${forensics}/pic1/IMG_1054.JPG`,
    kind: 'photo',
    left: 500,
    top: 350,
    distortions: [jpeg(60), webp(70), avif(45)],
  },
  {
    name: 'phone',
    path: `${forensics}/pic1/IMG-20191006-WA0002.jpg`,
    kind: 'photo',
    left: 380,
    top: 260,
    distortions: [jpeg(75, '4:4:4'), webp(45), avif(20)],
  },
  {
    name: 'hubble',
    path: `${skimage}/hubble_deep_field.jpg`,
    kind: 'photo',
    left: 400,
    top: 300,
    distortions: [jpeg(45), avif(35)],
  },
  {
    name: 'page',
    path: `${skimage}/page.png`,
    kind: 'graphic',
    left: 60,
    top: 0,
    distortions: [pngquant(8), jpeg(80), webp(75)],
  },
  {
    name: 'text',
    path: `${skimage}/text.png`,
    kind: 'graphic',
    left: 100,
    top: 0,
    distortions: [pngquant(16), jpeg(60)],
  },
  {
    name: 'green-palette',
    path: `${skimage}/green_palette.png`,
    kind: 'graphic',
    left: 32,
    top: 0,
    distortions: [pngquant(8), webp(60), avif(30)],
  },
  {
    name: 'color',
    path: `${skimage}/color.png`,
    kind: 'graphic',
    left: 60,
    top: 60,
    distortions: [pngquant(64), jpeg(70)],
  },
  {
    name: 'debian-screen',
    path: `${forensics}/pic2/d-debian.png`,
    kind: 'alpha',
    left: 300,
    top: 200,
    distortions: [pngquant(32), webp(75), avif(35)],
  },
  {
    name: 'debian-alpha',
    path: `${forensics}/pic1/debian.png`,
    kind: 'alpha',
    left: 280,
    top: 150,
    distortions: [pngquant(64), webp(60), avif(45)],
  },
  {
    name: 'logo',
    path: `${skimage}/logo.png`,
    kind: 'alpha',
    left: 120,
    top: 120,
    distortions: [pngquant(48), avif(40), webp(85)],
  },
  {
    name: 'horse',
    path: `${skimage}/horse.png`,
    kind: 'alpha',
    left: 80,
    top: 40,
    distortions: [pngquant(4), webp(50)],
  },
];
