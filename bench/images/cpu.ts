/**
 * CPU time, measured per request and per peer run, so the machine's load does not enter the ratios; both
 * sides from cgroups (bench/shared/cpu-meter.ts), so a ratio compares like with like.
 *
 * - Presso: each request runs in a worker child process (`presso-worker.ts`) that does nothing else while
 *   it runs, moved into a cgroup of its own for the request (`CpuMeter.measure`): libvips', the encoders'
 *   and the metric's threads, and every tool it runs in the sandbox (cjxl, gifsicle, the SVG child), which
 *   its rusage does not see. Workers are warmed up first (module load, libvips start-up and the native
 *   metric's first call are not a request's cost).
 * - Peers: each command joins a cgroup of its own before it execs (`CpuUnit.command`), so its CPU is that
 *   process's and everything it starts. A peer runs directly, not sandboxed, so its rusage (python's
 *   `os.wait4`, used before) would be right too; the cgroup is the same measure as Presso's, to the tick.
 */
import { type ChildProcess, fork, spawn } from 'node:child_process';
import { availableParallelism } from 'node:os';
import { resolve } from 'node:path';
import { CpuMeter } from '../shared/cpu-meter.ts';

let meter: CpuMeter | undefined;

/**
 * The images bench's cgroup, opened on first use. Open it before the workers start, so their own
 * cgroups are made under it.
 */
export function imagesMeter(): CpuMeter {
  meter ??= CpuMeter.open('images');
  return meter;
}

export async function closeImagesMeter(): Promise<void> {
  await meter?.close();
  meter = undefined;
}

export interface ToolRun {
  code: number;
  cpuMs: number;
  stderr: string;
}

/** Runs one peer command; its CPU (user+sys of the command and of every process it starts) in ms. */
export async function runMeasured(cmd: string, args: string[]): Promise<ToolRun> {
  const unit = imagesMeter().unit();
  try {
    const [file, argv] = unit.command(cmd, args);
    const { code, stderr } = await new Promise<{ code: number; stderr: string }>((done, fail) => {
      const child = spawn(file, argv, { stdio: ['ignore', 'ignore', 'pipe'] });
      let tail = '';
      child.stderr.on('data', (chunk: Buffer) => {
        tail = (tail + chunk.toString()).slice(-4000);
      });
      child.on('error', fail);
      child.on('close', (exit) => done({ code: exit ?? -1, stderr: tail }));
    });
    return { code, cpuMs: (await unit.finish()).seconds * 1000, stderr };
  } finally {
    await unit.remove();
  }
}

/** Runs a command that must succeed; throws with its stderr otherwise. */
export async function runChecked(cmd: string, args: string[]): Promise<number> {
  const run = await runMeasured(cmd, args);
  if (run.code !== 0) throw new Error(`${cmd} ${args.join(' ')} exited ${run.code}: ${run.stderr}`);
  return run.cpuMs;
}

export interface PressoRun {
  path: string;
  format: string;
  bytes: number;
  cpuMs: number;
  wallMs: number;
  /** One encode of the output's format plus one whole-output score (search-floor.ts); lossy formats only. */
  floorCpuMs?: number;
  /** The floor's parts: the encode, and decoding both sides plus the whole-output score. */
  floorEncodeCpuMs?: number;
  floorScoreCpuMs?: number;
}

interface Pending {
  done: (run: PressoRun) => void;
  fail: (error: Error) => void;
}

/** One warmed-up worker process; requests to it run one at a time. */
class Worker {
  private readonly child: ChildProcess;
  private pending: Pending | undefined;
  private tail: Promise<unknown> = Promise.resolve();

  constructor() {
    this.child = fork(resolve(import.meta.dirname, 'presso-worker.ts'), [], {
      stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
    });
    this.child.on('message', (m: { ok: true; run: PressoRun } | { ok: false; error: string }) => {
      const p = this.pending;
      this.pending = undefined;
      if (m.ok) p?.done(m.run);
      else p?.fail(new Error(m.error));
    });
  }

  run(input: string, params: Record<string, unknown>, workDir: string): Promise<PressoRun> {
    const next = this.tail.then(
      () =>
        new Promise<PressoRun>((done, fail) => {
          this.pending = { done, fail };
          this.child.send({ input, params, workDir });
        }),
    );
    this.tail = next.catch(() => undefined);
    return next;
  }

  close(): void {
    this.child.disconnect();
  }
}

/** Worker processes for Presso requests, one per core: the cases run on them two at a time. */
export class PressoWorkers {
  private readonly idle: Worker[];
  private readonly waiting: ((w: Worker) => void)[] = [];

  constructor(count = availableParallelism()) {
    this.idle = Array.from({ length: count }, () => new Worker());
  }

  async warmUp(input: string, workDir: string): Promise<void> {
    await Promise.all(this.idle.map((w) => w.run(input, { compression: 'high' }, workDir)));
  }

  /** One request on an idle worker (waits for one). */
  async run(input: string, params: Record<string, unknown>, workDir: string): Promise<PressoRun> {
    const worker = this.idle.pop() ?? (await new Promise<Worker>((r) => this.waiting.push(r)));
    try {
      return await worker.run(input, params, workDir);
    } finally {
      const next = this.waiting.shift();
      if (next) next(worker);
      else this.idle.push(worker);
    }
  }

  close(): void {
    for (const w of this.idle) w.close();
  }
}

/** Runs `fn` over `items`, `concurrency` at a time, keeping the input order in the result. */
export async function pool<T, R>(items: T[], concurrency: number, fn: (t: T) => Promise<R>): Promise<R[]> {
  const out: R[] = new Array(items.length);
  let next = 0;
  await Promise.all(
    Array.from({ length: Math.min(concurrency, items.length) }, async () => {
      while (next < items.length) {
        const i = next++;
        out[i] = await fn(items[i]!);
      }
    }),
  );
  return out;
}
