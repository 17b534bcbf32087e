/**
 * Runs every external tool of every processor (ffmpeg, Ghostscript, qpdf, Poppler, LibreOffice, 7-Zip,
 * bsdtar, the compressors, the image CLIs, the SVG child), the way gotenberg's `pkg/gotenberg/cmd.go` does:
 * no shell; inside the sandbox (sandbox.ts: bubblewrap, the job's folder as the only data it sees, no
 * network); the job's working directory as cwd; an environment of its own, without the server's
 * variables; its own process group, killed whole with SIGKILL at the deadline, on abort and after the tool
 * exits, because LibreOffice's launcher and ffmpeg fork workers that outlive a kill of the direct child
 * (bubblewrap's own PID namespace dies with it: nothing inside outlives it); memory, CPU-time and
 * file-size limits through util-linux `prlimit` where it exists; and stderr kept only as a capped tail for
 * the log, never returned as is (it names server paths).
 */
import { closeSync, existsSync, openSync } from 'node:fs';
import os from 'node:os';
import { basename } from 'node:path';
import { ToolMissingError, UnprocessableInputError } from '../../errors/catalog.ts';
import type { Deadline } from './deadline.ts';
import { publicDetail } from './public-detail.ts';
import { BWRAP, bwrapArgs, resolveProgram, sandboxMode, toolEnvironment } from './sandbox.ts';
import { signalName, spawnProcess, type ToolProcess } from './spawn-process.ts';

export interface ToolRun {
  deadline: Deadline;
  signal: AbortSignal;
  /** The job's private working directory; the tool's cwd. */
  workDir: string;
  /**
   * The folder the sandbox exposes, read and write: the job's own folder, which holds `workDir`.
   * Default: `workDir` (a processor used alone).
   */
  jobDir?: string;
  /** Files the tool may read besides `jobDir` (read-only): the processor's input. */
  inputs?: readonly string[];
}

/**
 * The folders of a tool run a processor's request decides: its work directory as cwd, the job's folder
 * as the sandbox's data, its input readable.
 */
export function toolScope(request: {
  workDir: string;
  jobDir?: string;
  input: { path: string };
}): Pick<ToolRun, 'workDir' | 'jobDir' | 'inputs'> {
  return {
    workDir: request.workDir,
    jobDir: request.jobDir ?? request.workDir,
    inputs: [request.input.path],
  };
}

export interface ToolLimits {
  /** Private writable memory (RLIMIT_DATA: heap and anonymous mappings, not reserved address space). */
  memoryBytes: number;
  /** CPU time over all threads (RLIMIT_CPU); default: the deadline's time on every core, a backstop. */
  cpuSeconds: number;
  /** Largest file the tool may write (RLIMIT_FSIZE). */
  fileBytes: number;
}

export interface ToolOptions {
  /** The tool's name in messages; default: the command's base name. */
  label?: string;
  limits?: Partial<ToolLimits>;
  /** Keep stdout (up to `STREAM_CAP` bytes) for the result instead of discarding it. */
  captureStdout?: boolean;
  /** Receives stdout as it arrives (ffmpeg's `-progress pipe:1` lines), whether or not it is captured. */
  onStdout?: (chunk: Buffer) => void;
  /**
   * Writes stdout to this file instead (decompressors that have no output option, listings longer than
   * `STREAM_CAP`); the tool writes it itself, so `limits.fileBytes` caps it.
   */
  stdoutFile?: string;
  /**
   * Written to the tool's stdin, then closed: secrets (archive passwords) go here rather than on the command
   * line, where any process on the host can read them in `/proc/<pid>/cmdline`. Without it stdin is empty.
   */
  stdin?: string | Buffer;
  /** The program's own files outside the system folders, read-only in the sandbox (the SVG child's code). */
  programFiles?: readonly string[];
  /** Variables on top of the tool environment (a Node child's compile cache: node-child.ts). */
  env?: Readonly<Record<string, string>>;
}

export interface ToolResult {
  stdout: string;
  /** The last `STREAM_CAP` bytes of stderr, for logs only. */
  stderr: string;
}

/** Tails above this are cut from the front: the last lines say why a tool failed. */
export const STREAM_CAP = 16 * 1024;

/**
 * 4 GiB of private memory: a 50 MP image is 200 MB per RGBA copy and cjxl keeps several; a decompression
 * bomb fails its allocation instead of pushing the host into swap. RLIMIT_DATA rather than RLIMIT_AS:
 * V8 alone reserves more address space than it uses (Node 24 does not start under 4 GiB of AS).
 */
export const DEFAULT_TOOL_LIMITS: Omit<ToolLimits, 'cpuSeconds'> = {
  memoryBytes: 4 * 1024 ** 3,
  fileBytes: 2 * 1024 ** 3,
};

const PRLIMIT = '/usr/bin/prlimit';
/** False on hosts without util-linux (macOS development machines); the deadline kill still applies. */
export const limitsEnforced = process.platform === 'linux' && existsSync(PRLIMIT);

/** After the tool exits, grandchildren in another session could keep its pipes open; wait this long. */
const PIPE_GRACE_MS = 1000;

/** Resolves when the tool exits 0; a failure is the input's problem (422) unless the tool is missing. */
export function runTool(
  command: string,
  args: string[],
  run: ToolRun,
  options: ToolOptions = {},
): Promise<ToolResult> {
  const label = options.label ?? basename(command);
  try {
    run.signal.throwIfAborted();
  } catch (reason) {
    return Promise.reject(reason);
  }
  let timeout: number;
  try {
    timeout = run.deadline.remainingMs();
  } catch (exceeded) {
    return Promise.reject(exceeded);
  }
  const limits = { ...DEFAULT_TOOL_LIMITS, cpuSeconds: cpuBackstop(timeout), ...options.limits };
  // Looked up here, in the server's PATH: the sandbox has none of it, and a missing tool is named.
  const program = resolveProgram(command);
  if (program === undefined) return Promise.reject(new ToolMissingError(label));
  const jobDir = run.jobDir ?? run.workDir;
  const sandboxed = sandboxMode() === 'bwrap';
  const [tool, toolArgs] = sandboxed
    ? [
        BWRAP,
        bwrapArgs(program, args, {
          jobDir,
          cwd: run.workDir,
          readOnly: [...(options.programFiles ?? []), ...(run.inputs ?? [])],
        }),
      ]
    : [program, args];
  const [file, argv] = limitsEnforced
    ? [PRLIMIT, [...prlimitArgs(limits), '--', tool, ...toolArgs]]
    : [tool, toolArgs];

  return new Promise((resolve, reject) => {
    const stdoutFd = options.stdoutFile === undefined ? undefined : openSync(options.stdoutFile, 'w', 0o600);
    // In a session of its own (spawn-process.ts), so one kill of its group reaches everything it forks.
    const child = spawnProcess(file, argv, {
      cwd: run.workDir,
      // Caches and profiles go to the sandbox's private /tmp, or to the job's folder without a sandbox.
      env: { ...toolEnvironment(sandboxed ? '/tmp' : jobDir), ...options.env },
      stdio: [
        options.stdin === undefined ? 'ignore' : 'pipe',
        stdoutFd ?? (options.captureStdout || options.onStdout ? 'pipe' : 'ignore'),
        'pipe',
      ],
    });
    // The child holds its own copy of the descriptor.
    if (stdoutFd !== undefined) closeSync(stdoutFd);
    if (options.stdin !== undefined && child.stdin) {
      // A tool that exits without reading its stdin closes the pipe: EPIPE is its business, not a crash.
      child.stdin.on('error', () => {});
      child.stdin.end(options.stdin);
    }
    const stderr = new TailBuffer(STREAM_CAP);
    const stdout = new TailBuffer(STREAM_CAP);
    child.stderr?.on('data', (chunk: Buffer) => stderr.push(chunk));
    child.stdout?.on('data', (chunk: Buffer) => {
      if (options.captureStdout) stdout.push(chunk);
      options.onStdout?.(chunk);
    });
    let stoppedBy: 'deadline' | 'abort' | undefined;
    const stop = (why: 'deadline' | 'abort') => {
      stoppedBy ??= why;
      killGroup(child);
    };
    const timer = setTimeout(() => stop('deadline'), timeout);
    const onAbort = () => stop('abort');
    run.signal.addEventListener('abort', onAbort, { once: true });
    let exit: Exit | undefined;
    let grace: NodeJS.Timeout | undefined;
    child.on('exit', (code, signal) => {
      exit = sandboxed ? exitInside(code, signal) : { code, signal };
      killGroup(child); // workers the tool left behind
      grace = setTimeout(() => {
        child.stdout?.destroy();
        child.stderr?.destroy();
      }, PIPE_GRACE_MS);
    });
    const settle = (outcome: () => void) => {
      clearTimeout(timer);
      clearTimeout(grace);
      run.signal.removeEventListener('abort', onAbort);
      outcome();
    };
    child.on('error', (error: NodeJS.ErrnoException) => {
      killGroup(child);
      settle(() => reject(error.code === 'ENOENT' ? new ToolMissingError(label, error) : error));
    });
    child.on('close', () => {
      const tail = stderr.text();
      settle(() => {
        if (stoppedBy === 'abort' || run.signal.aborted) return reject(run.signal.reason);
        if (stoppedBy === 'deadline') {
          return reject(run.deadline.exceeded(new Error(`${label} killed at the deadline: ${tail}`)));
        }
        if (exit?.code === 0) return resolve({ stdout: stdout.text(), stderr: tail });
        if (limitsEnforced && /^prlimit: failed to execute/m.test(tail)) {
          return reject(new ToolMissingError(label, new Error(tail.trim())));
        }
        // bubblewrap could not build the sandbox (a bind source gone, namespaces refused): the server's fault.
        if (sandboxed && exit?.code === 1 && /^bwrap: /m.test(tail)) {
          return reject(new Error(`${label}: the sandbox could not start: ${tail.trim()}`));
        }
        const reason = failureReason(exit, tail, run.workDir);
        const cause = new Error(`${command} ${exitReason(exit)}: ${tail}`);
        reject(new UnprocessableInputError(`${label} could not process the file: ${reason}`, cause));
      });
    });
  });
}

function prlimitArgs(limits: ToolLimits): string[] {
  return [
    `--data=${Math.floor(limits.memoryBytes)}`,
    // Soft limit sends SIGXCPU (reported as such); the hard one a second later is SIGKILL.
    `--cpu=${Math.ceil(limits.cpuSeconds)}:${Math.ceil(limits.cpuSeconds) + 1}`,
    `--fsize=${Math.floor(limits.fileBytes)}`,
  ];
}

/** The whole deadline on every core, plus a second: never the limit that fires first for honest work. */
function cpuBackstop(timeoutMs: number): number {
  return Math.ceil(timeoutMs / 1000) * os.availableParallelism() + 1;
}

function killGroup(child: ToolProcess): void {
  if (child.pid === undefined) return;
  try {
    process.kill(-child.pid, 'SIGKILL');
  } catch {
    // ESRCH: the group is already gone.
  }
}

type Exit = { code: number | null; signal: NodeJS.Signals | null };

/** bubblewrap exits with 128 + the signal that ended the tool (SIGXCPU at the CPU limit is 152). */
function exitInside(code: number | null, signal: NodeJS.Signals | null): Exit {
  if (code === null || code <= 128) return { code, signal };
  const name = signalName(code - 128);
  return name === undefined ? { code, signal } : { code: null, signal: name };
}

function exitReason(exit: Exit | undefined): string {
  if (exit?.signal) return `stopped by ${exit.signal}`;
  return `exited with code ${exit?.code ?? 'unknown'}`;
}

/** Lines that say where, not why: stack frames, native backtraces, error-object fields, version banners. */
const NOISE = /^(at |\d+: 0x|----- |Node\.js v\d|[{}]$|(code|errno|syscall|path): )/;
/** A line that reads like the failure itself. */
const COMPLAINT =
  /error|fail|invalid|cannot|can't|could not|unable|corrupt|unsupported|unexpected|bad |not /i;

/** A short public reason: the limit that stopped the tool, or its last stderr line without any path. */
function failureReason(exit: Exit | undefined, stderr: string, workDir: string): string {
  if (exit?.signal === 'SIGXCPU') return 'it exceeded its CPU-time limit.';
  if (exit?.signal === 'SIGXFSZ') return 'its output exceeded the size limit.';
  const lines = stderr
    .split('\n')
    .map((line) => publicDetail(line, workDir))
    .filter((line) => /[A-Za-z]{2}/.test(line) && !NOISE.test(line));
  const last = lines.findLast((line) => COMPLAINT.test(line)) ?? lines.at(-1);
  if (last !== undefined) return last.endsWith('.') ? last : `${last}.`;
  return exit?.signal ? `it stopped (${exit.signal}).` : `it exited with code ${exit?.code ?? 'unknown'}.`;
}

/** Keeps the last `cap` bytes of a stream. */
class TailBuffer {
  readonly #cap: number;
  #chunks: Buffer[] = [];
  #size = 0;

  constructor(cap: number) {
    this.#cap = cap;
  }

  push(chunk: Buffer): void {
    this.#chunks.push(chunk);
    this.#size += chunk.length;
    while (this.#size - this.#chunks[0]!.length >= this.#cap) this.#size -= this.#chunks.shift()!.length;
  }

  text(): string {
    const all = Buffer.concat(this.#chunks);
    return all.subarray(Math.max(0, all.length - this.#cap)).toString('utf8');
  }
}
