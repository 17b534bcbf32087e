/**
 * CPU time, measured per request and per peer run, so the machine's load does not enter the ratios.
 *
 * - Presso: each request runs in a worker child process (`presso-worker.ts`) that does nothing else while
 *   it runs; its `process.cpuUsage()` delta around `processor.process()` is the request's user+sys CPU,
 *   libvips', the encoders' and the metric's threads included. Workers are warmed up first (module load,
 *   libvips start-up and the native metric's first call are not a request's cost).
 * - Peers: each command runs under a small python3 wrapper that forks, execs the command and reads the
 *   child's own rusage with `os.wait4()` (microsecond user+sys of that child and whatever it waited for).
 *   Node has no per-child rusage (`process.resourceUsage()` is the process itself), and `/usr/bin/time`
 *   prints 10 ms steps, too coarse for a 30 ms cjpeg run.
 */
import { type ChildProcess, fork, spawn } from 'node:child_process';
import { availableParallelism } from 'node:os';
import { resolve } from 'node:path';

const WAIT4 = [
  'import os, sys',
  'pid = os.fork()',
  'if pid == 0:',
  '    os.execvp(sys.argv[1], sys.argv[1:])',
  '_, status, usage = os.wait4(pid, 0)',
  "sys.stderr.write('\\nPEER-CPU %.6f\\n' % (usage.ru_utime + usage.ru_stime))",
  'sys.exit(os.waitstatus_to_exitcode(status))',
].join('\n');

export interface ToolRun {
  code: number;
  cpuMs: number;
  stderr: string;
}

/** Runs one peer command; its CPU (user+sys of that process tree's waited-for children) in ms. */
export function runMeasured(cmd: string, args: string[]): Promise<ToolRun> {
  return new Promise((done, fail) => {
    const child = spawn('python3', ['-c', WAIT4, cmd, ...args], { stdio: ['ignore', 'ignore', 'pipe'] });
    let stderr = '';
    child.stderr.on('data', (chunk: Buffer) => {
      stderr = (stderr + chunk.toString()).slice(-4000);
    });
    child.on('error', fail);
    child.on('close', (code) => {
      const cpu = /PEER-CPU ([\d.]+)\s*$/.exec(stderr);
      if (!cpu) return fail(new Error(`no CPU reading for ${cmd}: ${stderr}`));
      done({ code: code ?? -1, cpuMs: Number(cpu[1]) * 1000, stderr });
    });
  });
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
