/**
 * Writes the Canon 1280×960 photo and its mozjpeg q70 copy, decoded, with the sRGB → linear table and the
 * blur constants, to one file for harness.cc: the native metric run without Node, so callgrind counts
 * its instructions alone (docs/benchmarks.md, "Speed levers: the metric").
 *
 * node bench/metric/callgrind/dump-pair.ts /tmp/pair.bin [INPUT] [--proxy]
 * (INPUT: another image, decoded as sRGB; --proxy: the search's 3×3 proxy mosaic of 192 px tiles, each tile
 * encoded at q70 on its own, as a proxy trial scores it; the image itself when it is not larger)
 * g++ -std=c++17 -O3 -march=x86-64 -ffp-contract=off -g -Inative/ssimulacra2/src bench/metric/callgrind/harness.cc \
 *   native/ssimulacra2/src/metric.cc native/ssimulacra2/src/reference.cc native/ssimulacra2/src/recursive_gaussian.cc \
 *   -o /tmp/harness
 * valgrind --tool=callgrind /tmp/harness /tmp/pair.bin [RUNS [prepared]] && callgrind_annotate callgrind.out.*
 * (RUNS scores; `prepared`: the reference prepared once, then RUNS scores against it; RUNS 0: preparing alone)
 */
import { writeFileSync } from 'node:fs';
import {
  decodeRgb,
  mosaicTiles,
  SEARCH_MOSAIC,
  sharpFromRgb,
  stitch,
} from '../../../src/processors/shared/metric/pixels.ts';
import { BLUR_CONSTANTS } from '../../../src/processors/shared/metric/recursive-gaussian.ts';
import { linearTable, type RgbImage } from '../../../src/processors/shared/metric/ssimulacra2.ts';
import { corpus } from '../../../test/support/corpus.ts';

const out = process.argv[2] ?? '/tmp/pair.bin';
const input =
  process.argv[3] !== undefined && !process.argv[3].startsWith('--') ? process.argv[3] : corpus.canonPhoto;
const whole = await decodeRgb(input);
const q70 = async (image: RgbImage) =>
  decodeRgb(await sharpFromRgb(image).jpeg({ quality: 70, mozjpeg: true }).toBuffer());
const grid = process.argv.includes('--proxy') ? mosaicTiles(whole, SEARCH_MOSAIC) : undefined;
const reference = grid === undefined ? whole : stitch(grid);
const distorted =
  grid === undefined ? await q70(whole) : stitch({ ...grid, tiles: await Promise.all(grid.tiles.map(q70)) });
const bytes = reference.width * reference.height * 3;
const header = new Float64Array([reference.width, reference.height, BLUR_CONSTANTS.length]);
writeFileSync(
  out,
  Buffer.concat([
    Buffer.from(header.buffer),
    Buffer.from(BLUR_CONSTANTS.buffer),
    Buffer.from(linearTable(3, 0.5).buffer),
    Buffer.from(reference.data.buffer, reference.data.byteOffset, bytes),
    Buffer.from(distorted.data.buffer, distorted.data.byteOffset, bytes),
  ]),
);
console.log(`${out}: ${reference.width}×${reference.height}`);
