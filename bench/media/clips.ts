/** The media benchmarks' clips from Debian packages (scripts/corpus), listed once for every bench/media script. */
import { resolve } from 'node:path';

/** The bench corpus's usr/share, where the clips are. */
export const CORPUS = resolve(process.env.PRESSO_BENCH_CORPUS ?? '.corpus/bench', 'usr/share');

/** The clips (under CORPUS) and what each is; `.gz` ones are unpacked first. */
export const VIDEOS: readonly { file: string; kind: string }[] = [
  { file: 'forensics-samples/original-files/movie1/VID_20191220_170832.mp4', kind: 'phone camera, VFR' },
  { file: 'forensics-samples/original-files/movie2/movie-hello.mp4', kind: 'camera' },
  { file: 'help/C/gnome-help/figures/display-dual-monitors.webm', kind: 'screen recording' },
  { file: 'doc/opencv-doc/examples/data/Megamind.avi', kind: 'animation' },
  { file: 'doc/opencv-doc/examples/data/vtest.avi', kind: 'surveillance camera' },
  { file: 'doc/opencv-doc/opencv4/html/box.mp4.gz', kind: 'hand-held camera' },
];
