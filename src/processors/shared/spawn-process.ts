/**
 * How the tool runner (run-tool.ts) starts a process: through posix_spawn (native/spawn, built by
 * scripts/setup.sh) where the addon is built, else Node's `child_process.spawn`. Node's spawn forks, and a
 * fork copies the parent's page tables with the event loop blocked: measured here, 2.5 CPU ms a start from a
 * 46 MB process and 31 ms from a 683 MB one (a server holding a few large images), every tool start of every
 * job. posix_spawn's clone(CLONE_VM | CLONE_VFORK) copies nothing (bench/spawn/run.ts). Both give the child
 * a session of its own (a kill of its process group reaches what it forks), default signal dispositions and
 * the given stdio; the result has the parts of a ChildProcess the runner uses, with the same events:
 * 'error' when the start failed, 'exit' (code, signal), then 'close' once its pipes are read to the end.
 * A posix_spawn start is published on the `presso:tool-spawn` diagnostics channel, as Node's spawn publishes
 * its own on `tracing:child_process.spawn:start` (test/run/probe.ts and test/support/spawn-watch.ts read both).
 */
import { spawn as forkSpawn } from 'node:child_process';
import { channel } from 'node:diagnostics_channel';
import { EventEmitter } from 'node:events';
import { createRequire } from 'node:module';
import { Socket } from 'node:net';
import { constants } from 'node:os';
import type { Readable, Writable } from 'node:stream';
import { fileURLToPath } from 'node:url';

/** 'ignore' (/dev/null), 'pipe', or a descriptor of this process the child gets as it is. */
export type StdioSpec = 'ignore' | 'pipe' | number;

export interface SpawnOptions {
  cwd: string;
  env: NodeJS.ProcessEnv;
  stdio: readonly [StdioSpec, StdioSpec, StdioSpec];
}

/** The parts of a ChildProcess the tool runner uses. */
export interface ToolProcess extends EventEmitter {
  readonly pid?: number | undefined;
  readonly stdin: Writable | null;
  readonly stdout: Readable | null;
  readonly stderr: Readable | null;
}

interface Addon {
  spawn(
    file: string,
    argv: string[],
    envp: string[],
    cwd: string,
    stdio: number[],
  ): { pid: number; fds: number[] };
  watch(pid: number, done: (code: number | null, signal: number | null) => void): void;
}

/** Where node-gyp puts the addon (gitignored; scripts/setup.sh builds it when missing or stale). */
const ADDON_PATH = fileURLToPath(new URL('../../../native/spawn/build/Release/spawn.node', import.meta.url));

function loadAddon(): Addon | undefined {
  if (process.platform !== 'linux') return undefined;
  try {
    return createRequire(import.meta.url)(ADDON_PATH) as Addon;
  } catch {
    return undefined; // not built (a development machine without a compiler): Node's spawn
  }
}

const addon = loadAddon();
const spawns = channel('presso:tool-spawn');

export type SpawnMethod = 'posix_spawn' | 'fork';

/** How this process starts tools: `posix_spawn` (the addon) or `fork` (Node's spawn). */
export const spawnMethod: SpawnMethod = addon === undefined ? 'fork' : 'posix_spawn';

const SIGNAL_NAMES = new Map(
  Object.entries(constants.signals).map(([name, number]) => [number, name as NodeJS.Signals]),
);

/** The name of signal `number` (15: SIGTERM), or undefined for a number no signal has. */
export function signalName(number: number): NodeJS.Signals | undefined {
  return SIGNAL_NAMES.get(number);
}

export function spawnProcess(file: string, args: readonly string[], options: SpawnOptions): ToolProcess {
  return spawnProcessWith(spawnMethod, file, args, options);
}

/** `spawnProcess` by the method given (the contract test runs both); `posix_spawn` needs the addon built. */
export function spawnProcessWith(
  method: SpawnMethod,
  file: string,
  args: readonly string[],
  options: SpawnOptions,
): ToolProcess {
  if (method === 'fork') {
    return forkSpawn(file, args, {
      cwd: options.cwd,
      env: options.env,
      detached: true,
      stdio: [...options.stdio],
    });
  }
  if (addon === undefined) throw new Error(`posix_spawn is not available: ${ADDON_PATH} is not built`);
  // Node's spawn announces itself on its `tracing:child_process.spawn:start` channel; this start does here.
  if (spawns.hasSubscribers) spawns.publish({ file, args });
  return new SpawnedProcess(addon, file, args, options);
}

class SpawnedProcess extends EventEmitter implements ToolProcess {
  pid: number | undefined;
  stdin: Writable | null = null;
  stdout: Readable | null = null;
  stderr: Readable | null = null;
  /** The child's end and its pipes' ends still to come before 'close'. */
  private pending = 1;
  private exit: [number | null, NodeJS.Signals | null] = [null, null];

  constructor(addon: Addon, file: string, args: readonly string[], options: SpawnOptions) {
    super();
    const envp = Object.entries(options.env)
      .filter((entry): entry is [string, string] => entry[1] !== undefined)
      .map(([name, value]) => `${name}=${value}`);
    const stdio = options.stdio.map((spec) => (spec === 'ignore' ? -1 : spec === 'pipe' ? -2 : spec));
    let started: { pid: number; fds: number[] };
    try {
      // argv[0] is the file, as Node's spawn passes it.
      started = addon.spawn(file, [file, ...args], envp, options.cwd, stdio);
    } catch (error) {
      // As Node's spawn: the failure is an 'error' event, after the caller has attached its listeners.
      Object.assign(error as object, { path: file, syscall: 'spawn' });
      process.nextTick(() => this.emit('error', error));
      return;
    }
    this.pid = started.pid;
    const [stdin, stdout, stderr] = started.fds as [number, number, number];
    if (stdin >= 0) this.stdin = new Socket({ fd: stdin, readable: false, writable: true });
    this.stdout = stdout >= 0 ? this.readEnd(stdout) : null;
    this.stderr = stderr >= 0 ? this.readEnd(stderr) : null;
    addon.watch(started.pid, (code, signal) => {
      this.exit = [code, signal === null ? null : (signalName(signal) ?? null)];
      this.emit('exit', ...this.exit);
      this.settled();
    });
  }

  private readEnd(fd: number): Readable {
    this.pending++;
    const socket = new Socket({ fd, readable: true, writable: false });
    socket.once('close', () => this.settled());
    return socket;
  }

  private settled(): void {
    if (--this.pending === 0) this.emit('close', ...this.exit);
  }
}
