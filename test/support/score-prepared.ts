/**
 * Child-process script of test/processors/image/prepared-reference.test.ts: scores two deterministic
 * distorted images (one with alpha) against one prepared reference and prints the scores and the one-shot
 * scores as JSON; run with and without the addon (hide-native-metric.ts), the numbers must be the same.
 */
import { measureSsimulacra2, prepareReference } from '../../src/processors/shared/metric/score.ts';

const data = new Uint8Array(41 * 29 * 3).map((_, i) => (i * 37) % 256);
const reference = { data, width: 41, height: 29, channels: 3 as const };
const distorted = { ...reference, data: data.map((v) => v ^ 3) };
const rgba = new Uint8Array(41 * 29 * 4).map((_, i) =>
  i % 4 === 3 ? 128 + (i % 127) : data[i - (i >> 2)]! ^ 5,
);
const translucent = { data: rgba, width: 41, height: 29, channels: 4 as const };
const prepared = await prepareReference(reference);
const scores = [await prepared.score(distorted), await prepared.score(translucent)];
prepared.release();
process.stdout.write(JSON.stringify([...scores, await measureSsimulacra2(reference, distorted)]));
