/**
 * Child-process script of test/processors/image/ssimulacra2-native.test.ts: scores one deterministic pair
 * twice through measureSsimulacra2 and prints both scores as JSON (the fallback must warn only once).
 */
import { measureSsimulacra2 } from '../../src/processors/shared/metric/score.ts';

const data = new Uint8Array(40 * 30 * 3).map((_, i) => (i * 37) % 256);
const reference = { data, width: 40, height: 30, channels: 3 as const };
const distorted = { ...reference, data: data.map((v) => v ^ 3) };
process.stdout.write(
  JSON.stringify([
    await measureSsimulacra2(reference, distorted),
    await measureSsimulacra2(reference, distorted),
  ]),
);
