/**
 * Child process of the benchmark (cpu.ts): runs one image request at a time through the processor, exactly
 * as a job runs it, and reports the CPU spent inside that request: this process's (every thread) and every
 * tool's it ran in the sandbox, from a cgroup of the request's own. Nothing else runs in this process, so
 * it is the request's own cost whatever the machine does.
 */
import { mkdtemp, stat } from 'node:fs/promises';
import { basename, join } from 'node:path';
import { detectFile } from '../../src/media/detect.ts';
import { createImageProcessor } from '../../src/processors/image/image-processor.ts';
import { CpuMeter } from '../shared/cpu-meter.ts';
import { searchFloor } from './search-floor.ts';

// No wall-clock budget may cut a search short in the benchmark: results must not depend on the load.
const processor = createImageProcessor({ timeBudgetMs: 30 * 60_000, timeFloorMs: 30 * 60_000 });
// Under the bench's cgroup, where the worker started; removed when the worker exits.
const meter = CpuMeter.open('images-worker');

process.on('message', async (m: { input: string; params: Record<string, unknown>; workDir: string }) => {
  try {
    const detected = await detectFile(m.input);
    if (!detected) throw new Error(`not detected: ${m.input}`);
    const dir = await mkdtemp(join(m.workDir, 'job-'));
    const size = (await stat(m.input)).size;
    const started = performance.now();
    let wallMs = 0;
    const { value: result, seconds } = await meter.measure(async () => {
      const output = await processor.process({
        input: { ...detected, path: m.input, name: basename(m.input), size },
        params: m.params,
        workDir: dir,
        signal: new AbortController().signal,
        wantMetadata: false,
      });
      wallMs = performance.now() - started;
      return output;
    });
    const bytes = (await stat(result.path)).size;
    const cpuMs = seconds * 1000;
    // The floor of a verified output, measured after the request in cgroups of the same meter, in two
    // parts: one encode of the output's format and one whole-output score (search-floor.ts).
    const level = m.params.compression as string | undefined;
    const floor = await searchFloor(m.input, result.format, level ?? 'high', (work) => meter.measure(work));
    const floorParts = floor && {
      floorCpuMs: floor.encodeMs + floor.scoreMs,
      floorEncodeCpuMs: floor.encodeMs,
      floorScoreCpuMs: floor.scoreMs,
    };
    process.send?.({
      ok: true,
      run: { path: result.path, format: result.format, bytes, cpuMs, wallMs, ...floorParts },
    });
  } catch (error) {
    process.send?.({ ok: false, error: String(error) });
  }
});
