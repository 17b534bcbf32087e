/**
 * CPU time of a bench and of every process it starts, however deep, read from a cgroup (v2) of its own.
 * The children's rusage (`cutime` + `cstime` of /proc/self/stat) misses every tool that runs in the
 * sandbox: bubblewrap's outer process learns its child's exit through a pipe and never waits for it, so
 * the tool's time is never added to its parent's, nor to ours. Needs root (or a delegated cgroup).
 */
import { existsSync, mkdirSync, readFileSync, rmdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

export class CpuMeter {
  readonly #dir: string;
  readonly #home: string;

  constructor() {
    const mount = ['/sys/fs/cgroup', '/sys/fs/cgroup/unified'].find((dir) =>
      existsSync(join(dir, 'cgroup.procs')),
    );
    const own = /^0::(.*)$/m.exec(readFileSync('/proc/self/cgroup', 'utf8'))?.[1];
    if (mount === undefined || own === undefined) throw new Error('the bench needs a cgroup v2 hierarchy');
    this.#home = join(mount, own);
    this.#dir = join(mount, `presso-bench-sandbox-${process.pid}`);
    mkdirSync(this.#dir);
    writeFileSync(join(this.#dir, 'cgroup.procs'), String(process.pid));
  }

  seconds(): number {
    const usage = /^usage_usec (\d+)$/m.exec(readFileSync(join(this.#dir, 'cpu.stat'), 'utf8'))?.[1];
    return Number(usage) / 1e6;
  }

  close(): void {
    writeFileSync(join(this.#home, 'cgroup.procs'), String(process.pid));
    rmdirSync(this.#dir);
  }
}
