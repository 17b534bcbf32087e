/**
 * CPU time of a measured unit of a benchmark (a request, a worker process, a peer run) and of every process
 * it starts, however deep, read from a cgroup (v2) of its own: `usage_usec` of `cpu.stat`, which the kernel
 * adds up for every task while it runs, whoever waits for it.
 *
 * Why not rusage: the children's rusage (`cutime` + `cstime` of /proc/<pid>/stat, python's `os.wait4`, a
 * process's own `process.cpuUsage()`) misses every tool that runs in the sandbox. bubblewrap's outer process
 * learns its child's exit through a pipe and never waits for it, so the tool's time is never added to its
 * parent's, nor to the server's: ffmpeg, Ghostscript, LibreOffice and 7-Zip all but vanish from the count.
 *
 * Layout: `CpuMeter.open()` makes `<this process's cgroup>/presso-bench-<label>-<pid>/`, moves this process
 * into its `bench` leaf, and makes one child cgroup per unit next to it. Peers run directly are measured the
 * same way (a unit of their own), so a ratio compares like with like. Needs write access to the cgroup v2
 * hierarchy: root, or a delegated cgroup (systemd `Delegate=yes`); no controller is enabled, `cpu.stat`'s
 * usage is there without one.
 */
import { existsSync, mkdirSync, readdirSync, readFileSync, rmdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';

/** The bench cannot make cgroups here: says what it needs instead of failing on an errno. */
export class CgroupAccessError extends Error {}

/** How long a finished unit's last processes (a tool being killed) get to end before they are killed. */
const SETTLE_MS = 10_000;

function cgroup2Mount(): string {
  for (const line of readFileSync('/proc/self/mountinfo', 'utf8').split('\n')) {
    const [before, after] = line.split(' - ');
    if (after?.split(' ')[0] === 'cgroup2') return before!.split(' ')[4]!;
  }
  throw new CgroupAccessError(
    'the benchmark measures CPU with cgroups v2 (sandboxed tools escape rusage), and this host mounts none',
  );
}

function ownCgroup(): string {
  const own = /^0::(.*)$/m.exec(readFileSync('/proc/self/cgroup', 'utf8'))?.[1];
  if (own === undefined) throw new CgroupAccessError('this process has no cgroup v2 (see /proc/self/cgroup)');
  return own;
}

function usageSeconds(dir: string): number {
  const usage = /^usage_usec (\d+)$/m.exec(readFileSync(join(dir, 'cpu.stat'), 'utf8'))?.[1];
  if (usage === undefined) throw new Error(`no usage_usec in ${dir}/cpu.stat`);
  return Number(usage) / 1e6;
}

function populated(dir: string): boolean {
  return /^populated 1$/m.test(readFileSync(join(dir, 'cgroup.events'), 'utf8'));
}

/**
 * Removes a cgroup and any under it (a worker's own meter left behind). Its last processes get `SETTLE_MS`
 * to end (a tool being killed), then are killed: a cgroup with processes cannot be removed, and a process
 * still running when its unit is over is a straggler the bench must not leave behind.
 */
async function removeCgroup(dir: string, settleMs = SETTLE_MS): Promise<void> {
  try {
    for (const entry of readdirSync(dir, { withFileTypes: true })) {
      if (entry.isDirectory()) await removeCgroup(join(dir, entry.name), settleMs);
    }
    for (const started = performance.now(); populated(dir); await sleep(5)) {
      if (performance.now() - started > settleMs) writeFileSync(join(dir, 'cgroup.kill'), '1');
    }
    rmdirSync(dir);
  } catch (error) {
    // Removed meanwhile by its own process (a worker's meter, as the worker exits).
    if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
  }
}

/** The processes of a cgroup and of those under it, as `name (pid N)`; gone ones are left out. */
function processesIn(dir: string): string[] {
  const nested = readdirSync(dir, { withFileTypes: true })
    .filter((entry) => entry.isDirectory())
    .flatMap((entry) => processesIn(join(dir, entry.name)));
  const own = readFileSync(join(dir, 'cgroup.procs'), 'utf8').split('\n').filter(Boolean);
  const named = own.flatMap((pid) => {
    try {
      return [`${readFileSync(`/proc/${pid}/comm`, 'utf8').trim()} (pid ${pid})`];
    } catch {
      return [];
    }
  });
  return [...named, ...nested];
}

/** One cgroup: a unit's processes and all they start. */
export class CpuUnit {
  readonly dir: string;
  readonly #onRemoved: () => void;
  readonly #settleMs: number;

  constructor(dir: string, onRemoved: () => void, settleMs = SETTLE_MS) {
    this.dir = dir;
    this.#onRemoved = onRemoved;
    this.#settleMs = settleMs;
    mkdirSync(dir);
  }

  /** CPU seconds of every process that ran in the unit so far, those that ended included. */
  seconds(): number {
    return usageSeconds(this.dir);
  }

  /**
   * Moves a running process (all its threads) into the unit; what it starts from now on is counted too.
   * For a long-lived process measured by differences (a server): its earlier time stays where it ran.
   */
  adopt(pid: number): void {
    writeFileSync(join(this.dir, 'cgroup.procs'), String(pid));
  }

  /**
   * `command` with `args` as a program that joins the unit before it execs the command, so its very first
   * instruction is counted (moving a child in after `spawn` would miss what it did and forked meanwhile).
   */
  command(command: string, args: readonly string[]): [string, string[]] {
    const procs = join(this.dir, 'cgroup.procs');
    return ['/bin/sh', ['-c', 'echo $$ > "$0" && exec "$@"', procs, command, ...args]];
  }

  /**
   * Once the unit's work is over: waits for its last processes to end, reads its CPU, removes it. The
   * stragglers are the processes still running after `SETTLE_MS` (killed by the removal), named so the one
   * who left them behind can be told: `soffice.bin (pid 123)`.
   */
  async finish(): Promise<{ seconds: number; stragglers: string[] }> {
    let stragglers: string[] = [];
    for (const started = performance.now(); populated(this.dir); await sleep(5)) {
      if (performance.now() - started > this.#settleMs) {
        stragglers = processesIn(this.dir);
        break;
      }
    }
    const seconds = this.seconds();
    await this.remove();
    return { seconds, stragglers };
  }

  async remove(): Promise<void> {
    if (!existsSync(this.dir)) return;
    await removeCgroup(this.dir, this.#settleMs);
    this.#onRemoved();
  }
}

export interface Measured<T> {
  value: T;
  /** CPU seconds of this process and of every process it started during the work. */
  seconds: number;
}

/** The bench's own cgroup, holding this process's leaf and one cgroup per measured unit. */
export class CpuMeter {
  readonly #home: string;
  readonly #root: string;
  readonly #bench: string;
  readonly #units = new Set<CpuUnit>();
  readonly #settleMs: number;
  #made = 0;
  #measuring = false;

  private constructor(home: string, root: string, settleMs: number) {
    this.#home = home;
    this.#root = root;
    this.#bench = join(root, 'bench');
    this.#settleMs = settleMs;
  }

  /**
   * Makes the bench's cgroup and moves this process into it; throws CgroupAccessError without the rights.
   * `settleMs`: how long a finished unit's last processes get before they are killed (a test of that waits less).
   */
  static open(label: string, { settleMs = SETTLE_MS }: { settleMs?: number } = {}): CpuMeter {
    const mount = cgroup2Mount();
    const home = join(mount, ownCgroup());
    const root = join(home, `presso-bench-${label}-${process.pid}`);
    try {
      mkdirSync(root);
      mkdirSync(join(root, 'bench'));
      writeFileSync(join(root, 'bench', 'cgroup.procs'), String(process.pid));
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code;
      if (code !== 'EACCES' && code !== 'EPERM' && code !== 'EROFS') throw error;
      throw new CgroupAccessError(
        'the benchmark measures CPU with cgroups v2 (sandboxed tools escape rusage) and needs write access ' +
          `to ${home}: run it as root, or in a delegated cgroup (a systemd unit with Delegate=yes) ` +
          `[${code}]`,
      );
    }
    const meter = new CpuMeter(home, root, settleMs);
    // A bench that fails before close() leaves no empty cgroup behind (best effort: nothing may still run).
    process.once('exit', () => meter.#leave());
    return meter;
  }

  /** A new, empty unit of the bench's cgroup. */
  unit(): CpuUnit {
    const unit: CpuUnit = new CpuUnit(
      join(this.#root, `unit-${++this.#made}`),
      () => this.#units.delete(unit),
      this.#settleMs,
    );
    this.#units.add(unit);
    return unit;
  }

  /**
   * Runs `work` with this process in a unit of its own: the CPU of this process (all its threads: libvips',
   * the encoders') and of every process it starts meanwhile, sandboxed tools included. One at a time: this
   * process cannot be in two cgroups, so nothing may run in it meanwhile that is not the work's.
   */
  async measure<T>(work: () => T | Promise<T>): Promise<Measured<T>> {
    if (this.#measuring) throw new Error('CpuMeter.measure: one measure at a time in a process');
    this.#measuring = true;
    const unit = this.unit();
    try {
      unit.adopt(process.pid);
      let value: T;
      try {
        value = await work();
      } finally {
        writeFileSync(join(this.#bench, 'cgroup.procs'), String(process.pid));
      }
      return { value, seconds: (await unit.finish()).seconds };
    } finally {
      await unit.remove();
      this.#measuring = false;
    }
  }

  /** Moves this process home and removes the bench's cgroups, killing what still runs in them. */
  async close(): Promise<void> {
    writeFileSync(join(this.#home, 'cgroup.procs'), String(process.pid));
    for (const unit of this.#units) await unit.remove();
    await removeCgroup(this.#root);
  }

  #leave(): void {
    if (!existsSync(this.#root)) return;
    try {
      writeFileSync(join(this.#home, 'cgroup.procs'), String(process.pid));
      for (const unit of this.#units) rmdirSync(unit.dir);
      rmdirSync(this.#bench);
      rmdirSync(this.#root);
    } catch {
      // A process of the bench's still runs in one: the cgroup stays, as that process does.
    }
  }
}
