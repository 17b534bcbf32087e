/**
 * The runner's pool: every test file a Node process of its own (as `node --test` makes them), at most `jobs`
 * at once and at most `heavyJobs` of the heavy tier among them. One pool instead of a light phase followed by a
 * heavy one: the light files use the cores while the heavy files wait (on a server starting, LibreOffice
 * starting, a browser), and no phase ends with a core idle while its last file finishes.
 * Files start in the order given (longest first), except that a heavy file waits for a heavy slot while the
 * light files behind it go ahead. Each file's output is held and printed whole when the file ends, so files
 * running side by side do not interleave; the summary adds up the counts each file's reporter printed.
 */
import { spawn } from 'node:child_process';
import type { CpuMeter } from '../../bench/shared/cpu-meter.ts';

export interface PoolFile {
  /** The file, or a group's name when `members` is given. */
  file: string;
  heavy: boolean;
  /**
   * Test files run together in this one process (`--test-isolation=none`): the fast tier's files, which each
   * spent more CPU on starting Node and loading the app than on their tests (run-tests.ts groups them).
   */
  members?: readonly string[];
}

export interface PoolLimits {
  jobs: number;
  heavyJobs: number;
}

/** The counts the spec reporter prints at the end of a file's run (ℹ tests 3, ℹ pass 3, …). */
const COUNTS = ['tests', 'suites', 'pass', 'fail', 'cancelled', 'skipped', 'todo'] as const;
type Counts = Record<(typeof COUNTS)[number], number>;

export interface PoolResult {
  counts: Counts;
  /** Each file's CPU from its cgroup (runs with a meter only), by file (a group by its name). */
  cpuMs: Map<string, number>;
  /** Each file's wall time, by file (a group by its name). */
  wallMs: Map<string, number>;
  /** Files that exited with a failure, each with the part of its output that names the failing tests. */
  failed: { file: string; failing: string }[];
}

interface Ended {
  file: string;
  status: number | null;
  signal: NodeJS.Signals | null;
  output: string;
  wallMs: number;
  /** CPU of the file's process and every process it started, sandboxed tools included (with a meter). */
  cpuMs?: number;
}

async function runFile(
  root: string,
  entry: PoolFile,
  env: NodeJS.ProcessEnv,
  meter?: CpuMeter,
): Promise<Ended> {
  const { file, members } = entry;
  const started = performance.now();
  // In a cgroup of its own the file's CPU includes the tools the service ran in bubblewrap, which rusage
  // never sees (the sandbox's PID namespace reaps them).
  const unit = meter?.unit();
  const nodeArgs =
    members === undefined
      ? ['--test-reporter=spec', file]
      : ['--test', '--test-isolation=none', '--test-reporter=spec', ...members];
  const [command, args] = unit ? unit.command(process.execPath, nodeArgs) : [process.execPath, nodeArgs];
  // A group's tool starts are written down under its name (test/run/probe.ts).
  const childEnv = members === undefined ? env : { ...env, PRESSO_TEST_GROUP: file, PRESSO_TEST_FILE: file };
  const child = spawn(command, args, { cwd: root, env: childEnv, stdio: ['ignore', 'pipe', 'pipe'] });
  const chunks: Buffer[] = [];
  child.stdout.on('data', (chunk: Buffer) => chunks.push(chunk));
  child.stderr.on('data', (chunk: Buffer) => chunks.push(chunk));
  const [status, signal] = await new Promise<[number | null, NodeJS.Signals | null]>((ok) =>
    child.once('close', (code, killedBy) => ok([code, killedBy])),
  );
  const wallMs = performance.now() - started;
  const finished = await unit?.finish();
  let output = Buffer.concat(chunks).toString('utf8');
  // A test that leaves a process running (a server whose start failed, a tool nobody killed) made its file
  // wait the settle time and then lost that process to the kill: the file's author must hear of it.
  if (finished !== undefined && finished.stragglers.length > 0)
    output += `\n⚠ ${file} left processes running after it ended, killed: ${finished.stragglers.join(', ')}\n`;
  const cpuMs = finished === undefined ? undefined : Math.round(finished.seconds * 1000);
  return { file, status, signal, output, wallMs, cpuMs };
}

/** The last `ℹ <name> <n>` line for each count; lines are split on '\n' only, no pattern meets the output. */
function countsOf(output: string): Counts {
  const counts = Object.fromEntries(COUNTS.map((name) => [name, 0])) as Counts;
  for (const line of output.split('\n')) {
    if (!line.startsWith('ℹ ')) continue;
    const [name, value] = line.slice(2).trim().split(' ');
    if (name !== undefined && (COUNTS as readonly string[]).includes(name) && value !== undefined) {
      const n = Number(value);
      if (Number.isInteger(n)) counts[name as keyof Counts] = n;
    }
  }
  return counts;
}

/** The spec reporter's closing list of failing tests, or the whole output when it printed none (a crash). */
function failingPart(output: string): string {
  const at = output.lastIndexOf('✖ failing tests:');
  return at >= 0 ? output.slice(at) : output;
}

export async function runPool(
  root: string,
  queue: readonly PoolFile[],
  limits: PoolLimits,
  env: NodeJS.ProcessEnv,
  write: (text: string) => void = (text) => process.stdout.write(text),
  meter?: CpuMeter,
): Promise<PoolResult> {
  const waiting = [...queue];
  const running = new Map<string, { heavy: boolean; ended: Promise<Ended> }>();
  const result: PoolResult = { counts: countsOf(''), cpuMs: new Map(), wallMs: new Map(), failed: [] };
  const heavyRunning = () => [...running.values()].filter((r) => r.heavy).length;
  while (waiting.length > 0 || running.size > 0) {
    while (running.size < limits.jobs) {
      const at = waiting.findIndex((f) => !f.heavy || heavyRunning() < limits.heavyJobs);
      if (at < 0) break;
      const [next] = waiting.splice(at, 1) as [PoolFile];
      running.set(next.file, { heavy: next.heavy, ended: runFile(root, next, env, meter) });
    }
    const ended = await Promise.race([...running.values()].map((r) => r.ended));
    running.delete(ended.file);
    if (ended.cpuMs !== undefined) result.cpuMs.set(ended.file, ended.cpuMs);
    result.wallMs.set(ended.file, ended.wallMs);
    const seconds = (ended.wallMs / 1000).toFixed(1);
    write(`\n▶ ${ended.file} (${seconds} s)\n${ended.output}`);
    const counts = countsOf(ended.output);
    for (const name of COUNTS) result.counts[name] += counts[name];
    if (ended.status !== 0) {
      const how = ended.signal ? `killed by ${ended.signal}` : `exit status ${ended.status}`;
      write(`✖ ${ended.file}: ${how}\n`);
      result.failed.push({ file: ended.file, failing: failingPart(ended.output) });
    }
  }
  return result;
}

/** The run's closing summary, in the spec reporter's words, and every failing file again at the end. */
export function printSummary(result: PoolResult): void {
  for (const { file, failing } of result.failed) process.stdout.write(`\n✖ ${file}\n${failing}\n`);
  for (const name of COUNTS) process.stdout.write(`ℹ ${name} ${result.counts[name]}\n`);
  if (result.failed.length > 0) {
    process.stdout.write(
      `ℹ failed files ${result.failed.length}: ${result.failed.map((f) => f.file).join(', ')}\n`,
    );
  }
}
