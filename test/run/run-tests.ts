/**
 * The test runner behind `npm test` and `npm run test:fast`:
 *   node test/run/run-tests.ts [--tier=all|fast] [file|folder|glob ...]
 * Paths and globs given replace the default set (every test/**\/*.test.ts); `--tier=fast` keeps the fast
 * tier's files of them (test/run/tiers.ts). Every file runs in one pool (test/run/pool.ts), longest first:
 * PRESSO_TEST_JOBS at once (default one more than the cores: the one more fills the time a file waits on
 * sockets, databases, servers and timers; twice the cores made the files take CPU from each other, measured on
 * a quiet 2-core machine: 4 at once 367.8 s wall and 688.8 CPU-s, 3 at once 342.5 s and 643.5 CPU-s), of which at most PRESSO_TEST_HEAVY_JOBS heavy ones (default the cores, as
 * LibreOffice, ffmpeg, Chromium and the quality searches each keep a core busy; one more than the cores was
 * measured on a quiet 2-core machine from a fresh clone: 793.8 s wall and 1,109 CPU-s against 780.8 s and
 * 1,056 CPU-s, so no gain). At the end: the slowest and the busiest files, the run's wall and CPU time
 * (every file's also in node_modules/.cache/presso-test-run.json), and a failure for every file outside the
 * heavy list that started a heavy tool (test/run/probe.ts measures it).
 */
import {
  existsSync,
  globSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  rmSync,
  statSync,
  writeFileSync,
} from 'node:fs';
import { availableParallelism, tmpdir } from 'node:os';
import { dirname, join, relative, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { CgroupAccessError, CpuMeter } from '../../bench/shared/cpu-meter.ts';
import { groupFiles, groupName } from './groups.ts';
import { type PoolFile, printSummary, runPool } from './pool.ts';
import { FAST_CPU_MS, isHeavy, tierOf } from './tiers.ts';

const root = resolve(import.meta.dirname, '..', '..');
const DEFAULT_SET = 'test/**/*.test.ts';
/** How many of the slowest files the end-of-run table shows (PRESSO_TEST_SLOWEST). */
const SLOWEST_SHOWN = Number(process.env.PRESSO_TEST_SLOWEST ?? 12);

/**
 * Each file's wall time in the last runs on this machine (a cache of its own, like node_modules). Files start
 * longest first: the pool then ends with short files instead of one core running the longest alone.
 */
const PAST_TIMINGS = join(root, 'node_modules', '.cache', 'presso-test-timings.json');

/** Node's compile cache for every process of a test run (V8 code for the app's and the tests' modules). */
const COMPILE_CACHE = join(root, 'node_modules', '.cache', 'node-compile');

interface Timing {
  file: string;
  wallMs: number;
  cpuMs: number;
}

function testFiles(patterns: readonly string[]): string[] {
  const found = new Set<string>();
  for (const pattern of patterns.length > 0 ? patterns : [DEFAULT_SET]) {
    const path = resolve(root, pattern);
    const matches = !existsSync(path)
      ? globSync(pattern, { cwd: root })
      : statSync(path).isDirectory()
        ? globSync(`${relative(root, path) || '.'}/**/*.test.ts`, { cwd: root })
        : [relative(root, path)];
    if (matches.length === 0) throw new Error(`no test file matches ${pattern}`);
    for (const file of matches) if (file.endsWith('.test.ts')) found.add(file);
  }
  return [...found].sort();
}

/**
 * The wall times a fresh clone starts from (checked in; CI runs from a fresh clone, where the machine's own
 * timings do not exist yet): only their order matters. Refresh with
 * `cp node_modules/.cache/presso-test-timings.json test/run/timings.json && npx biome format --write
 * test/run/timings.json` after a quiet whole run.
 */
const SEED_TIMINGS = join(import.meta.dirname, 'timings.json');

function readTimings(path: string): Record<string, number> {
  try {
    return JSON.parse(readFileSync(path, 'utf8')) as Record<string, number>;
  } catch {
    return {};
  }
}

/** This machine's last timings, over the checked-in ones. */
function pastWallMs(): Record<string, number> {
  return { ...readTimings(SEED_TIMINGS), ...readTimings(PAST_TIMINGS) };
}

/**
 * Longest first by the last run. Files never timed come first (one may be long, and it gets timed), the
 * largest of them first: the size is the only guess there is (Jest's sequencer does the same). A group
 * never timed under its name goes by its files' times.
 */
function longestFirst(entries: readonly PoolFile[], past: Record<string, number>): PoolFile[] {
  const key = ({ file, members }: PoolFile) => {
    const wall = past[file] ?? members?.reduce((sum, m) => sum + (past[m] ?? 1000), 0);
    return wall === undefined ? [1, statSync(resolve(root, file)).size] : [0, wall];
  };
  return [...entries]
    .map((entry) => ({ entry, key: key(entry) }))
    .sort(
      (a, b) => b.key[0]! - a.key[0]! || b.key[1]! - a.key[1]! || a.entry.file.localeCompare(b.entry.file),
    )
    .map(({ entry }) => entry);
}

/** The pool's entries: each heavy or server file alone, the fast ones in `groups` groups (0: each alone). */
function poolEntries(
  files: readonly string[],
  tiers: ReadonlyMap<string, string>,
  groups: number,
  past: Record<string, number>,
): PoolFile[] {
  const fast = files.filter((f) => tiers.get(f) === 'fast');
  const grouped = groups > 0 && fast.length > 1 ? groupFiles(fast, groups, past) : [];
  const alone = grouped.length > 0 ? files.filter((f) => tiers.get(f) !== 'fast') : files;
  return longestFirst(
    [
      ...alone.map((file) => ({ file, heavy: tiers.get(file) === 'heavy' })),
      ...grouped.map((members, i) => ({ file: groupName(i, grouped.length), heavy: false, members })),
    ],
    past,
  );
}

/** The last run's every file, busiest first, for a look at where the CPU went (LAST_RUN). */
const LAST_RUN = join(root, 'node_modules', '.cache', 'presso-test-run.json');

/**
 * A cgroup per test file, when this process may make them (root, or a delegated cgroup): a file's CPU then
 * counts every process it started, the service's sandboxed tools included. Without one (or with
 * PRESSO_TEST_CGROUPS=0) the CPU is the probe's rusage, which misses the sandboxed tools.
 */
function openMeter(): CpuMeter | undefined {
  if (process.env.PRESSO_TEST_CGROUPS === '0') return undefined;
  try {
    return CpuMeter.open('tests');
  } catch (error) {
    if (error instanceof CgroupAccessError) return undefined;
    throw error;
  }
}

function rememberTimings(
  past: Record<string, number>,
  timings: readonly Timing[],
  wallMs: number,
  runCpuMs: number,
  machineMs: number,
): void {
  // A run of files outside the repository (test/ci/tiers.test.ts runs the runner on a temporary file) is
  // not this checkout's suite: its times are not remembered.
  for (const { file, wallMs } of timings) if (!file.startsWith('..')) past[file] = wallMs;
  mkdirSync(dirname(PAST_TIMINGS), { recursive: true });
  writeFileSync(PAST_TIMINGS, `${JSON.stringify(past, null, 1)}\n`);
  const files = [...timings].sort((a, b) => b.cpuMs - a.cpuMs);
  const run = {
    wallMs: Math.round(wallMs),
    cpuMs: runCpuMs,
    machineCpuMs: machineMs,
    load: readFileSync('/proc/loadavg', 'utf8'),
    files,
  };
  writeFileSync(LAST_RUN, `${JSON.stringify(run, null, 1)}\n`);
}

function count(variable: string, fallback: number, least = 1): number {
  const value = Number(process.env[variable] ?? fallback);
  if (!Number.isInteger(value) || value < least)
    throw new Error(`${variable} must be a whole number >= ${least}`);
  return value;
}

function readLines<T>(path: string): T[] {
  if (!existsSync(path)) return [];
  return readFileSync(path, 'utf8')
    .split('\n')
    .filter((line) => line !== '')
    .map((line) => JSON.parse(line) as T);
}

/** CPU time of this process and every child it waited for (and theirs), in ms. */
function treeCpuMs(): number {
  const stat = readFileSync('/proc/self/stat', 'utf8');
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return [11, 12, 13, 14].reduce((sum, i) => sum + Number(fields[i]), 0) * 10;
}

/**
 * The machine's busy CPU time so far, in ms (/proc/stat: every state but idle and iowait). The tree's own
 * count misses what runs in the tool sandbox: bubblewrap's PID namespace reaps the tools, so their CPU never
 * reaches the test file's waited-for children. On a quiet machine the difference over a run is the run's
 * whole CPU, the sandboxed ffmpeg, LibreOffice and Ghostscript included.
 */
function machineBusyMs(): number {
  const [cpu] = readFileSync('/proc/stat', 'utf8').split('\n');
  const ticks = (cpu ?? '')
    .split(' ')
    .filter((w) => w !== '')
    .slice(1)
    .map(Number);
  const idle = (ticks[3] ?? 0) + (ticks[4] ?? 0);
  return (ticks.slice(0, 8).reduce((sum, t) => sum + t, 0) - idle) * 10; // USER_HZ is 100 on Linux
}

const seconds = (ms: number) => `${(ms / 1000).toFixed(1)} s`;

function report(timings: readonly Timing[], wallMs: number, runCpuMs: number, machineMs: number): void {
  const slowest = [...timings].sort((a, b) => b.wallMs - a.wallMs).slice(0, SLOWEST_SHOWN);
  console.log(`\n== slowest test files (wall, CPU incl. tools), of ${timings.length}`);
  for (const t of slowest)
    console.log(`${seconds(t.wallMs).padStart(9)} ${seconds(t.cpuMs).padStart(9)}  ${t.file}`);
  // On a machine shared with other work the wall times say more about the load than about the files.
  const busiest = [...timings].sort((a, b) => b.cpuMs - a.cpuMs).slice(0, SLOWEST_SHOWN);
  console.log(`== busiest test files (CPU incl. tools, wall), of ${timings.length}`);
  for (const t of busiest)
    console.log(`${seconds(t.cpuMs).padStart(9)} ${seconds(t.wallMs).padStart(9)}  ${t.file}`);
  const load = readFileSync('/proc/loadavg', 'utf8').split(' ').slice(0, 3).join(' ');
  console.log(
    `== test run: ${seconds(wallMs)} wall, ${seconds(runCpuMs)} CPU (${seconds(machineMs)} of the ` +
      `machine's, other work included), on ${availableParallelism()} cores ` +
      `(load average at the end: ${load})`,
  );
}

async function main(argv: readonly string[]): Promise<number> {
  const tierArg = argv.find((a) => a.startsWith('--tier='));
  const tier = tierArg === undefined ? 'all' : tierArg.slice('--tier='.length);
  if (tier !== 'all' && tier !== 'fast') throw new Error(`--tier must be all or fast, not ${tier}`);
  const files = testFiles(argv.filter((a) => !a.startsWith('--tier=')));
  const tiers = new Map(files.map((f) => [f, tierOf(f)]));
  const past = pastWallMs();
  const cores = availableParallelism();
  const queue = poolEntries(
    files.filter((f) => tier !== 'fast' || tiers.get(f) === 'fast'),
    tiers,
    count('PRESSO_TEST_FAST_GROUPS', cores + 1, 0),
    past,
  );
  const logDir = mkdtempSync(join(tmpdir(), 'presso-test-run-'));
  const probe = pathToFileURL(join(import.meta.dirname, 'probe.ts')).href;
  const env = {
    ...process.env,
    NODE_OPTIONS: `${process.env.NODE_OPTIONS ?? ''} --import=${probe}`.trim(),
    PRESSO_TEST_RUN_LOG: logDir,
    // Every test file is a Node process of its own that loads the app's modules (and a served test spawns
    // more): Node's on-disk compile cache roughly halves that start-up CPU (about 1.1 -> 0.6 CPU-s a file).
    NODE_COMPILE_CACHE: process.env.NODE_COMPILE_CACHE ?? COMPILE_CACHE,
  };
  const started = performance.now();
  const machineAtStart = machineBusyMs();
  const meter = openMeter();
  let failed = false;
  try {
    const limits = {
      jobs: count('PRESSO_TEST_JOBS', cores + 1),
      heavyJobs: count('PRESSO_TEST_HEAVY_JOBS', cores),
    };
    const run = queue.flatMap((entry) => entry.members ?? [entry.file]);
    const tally = (t: string) => run.filter((f) => tiers.get(f) === t).length;
    const groups = queue.filter((entry) => entry.members !== undefined).length;
    console.log(
      `== ${tally('fast')} fast${groups > 0 ? ` (in ${groups} groups)` : ''}, ${tally('server')} server and ` +
        `${tally('heavy')} heavy files: ${limits.jobs} at once, at most ${limits.heavyJobs} heavy`,
    );
    const result = await runPool(root, queue, limits, env, undefined, meter);
    printSummary(result);
    failed = result.failed.length > 0;
    const timings = [
      ...readLines<Timing>(join(logDir, 'files.jsonl')).map((t) => ({
        ...t,
        cpuMs: result.cpuMs.get(t.file) ?? t.cpuMs,
      })),
      // A group's process writes no timing of its own (probe.ts): the pool measured it.
      ...queue
        .filter((entry) => entry.members !== undefined && result.wallMs.has(entry.file))
        .map(({ file }) => ({
          file,
          wallMs: Math.round(result.wallMs.get(file)!),
          cpuMs: result.cpuMs.get(file) ?? 0,
        })),
    ];
    const wallMs = performance.now() - started;
    const machineMs = machineBusyMs() - machineAtStart;
    const runCpuMs = meter ? [...result.cpuMs.values()].reduce((a, b) => a + b, 0) : treeCpuMs();
    report(timings, wallMs, runCpuMs, machineMs);
    rememberTimings(past, timings, wallMs, runCpuMs, machineMs);
    for (const { file, cpuMs } of timings) {
      if (tiers.get(file) === 'fast' && cpuMs > FAST_CPU_MS) {
        console.log(`⚠ ${file} is in the fast tier but used ${seconds(cpuMs)} of CPU: see test/run/tiers.ts`);
      }
    }
    const misplaced = readLines<{ file: string; tool: string }>(join(logDir, 'spawns.jsonl')).filter(
      (s) => !isHeavy(s.file),
    );
    const membersOf = new Map(queue.map((entry) => [entry.file, entry.members]));
    for (const { file, tool } of new Map(misplaced.map((s) => [`${s.file} ${s.tool}`, s])).values()) {
      const members = membersOf.get(file);
      const which = members === undefined ? file : `one of ${file} (${members.join(', ')})`;
      console.log(`✖ ${which} is not in the heavy tier but started ${tool}: list it in test/run/tiers.ts`);
      failed = true;
    }
  } finally {
    rmSync(logDir, { recursive: true, force: true });
    await meter?.close();
  }
  return failed ? 1 : 0;
}

process.exitCode = await main(process.argv.slice(2));
