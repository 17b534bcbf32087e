/**
 * Loaded into every Node process of a test run (`--import` in NODE_OPTIONS, set by test/run/run-tests.ts),
 * so what a test file really does is measured, not guessed from its imports:
 * - each test file's process writes its wall and CPU time (its own and its waited children's) at exit;
 * - every process it starts (ChildProcess, the sync calls, and the tool runner's posix_spawn) that is a heavy tool (LibreOffice, ffmpeg/ffprobe, Chromium) or a second Presso
 *   (`src/cli/main.ts`) is written down with the test file it belongs to. The runner fails a run in which a
 *   fast-tier file did that, naming the file and the tool, so a heavy file cannot land in the fast tier.
 * A child inherits the test file's name through PRESSO_TEST_FILE, so a tool a spawned server starts counts too.
 * A group of fast files run in one process (PRESSO_TEST_GROUP, set by test/run/pool.ts) counts under the
 * group's name, and the runner takes its times from the pool.
 * Does nothing unless PRESSO_TEST_RUN_LOG names the folder the runner reads.
 */
import childProcess from 'node:child_process';
import { subscribe } from 'node:diagnostics_channel';
import { appendFileSync, readFileSync } from 'node:fs';
import { syncBuiltinESMExports } from 'node:module';
import { join, relative } from 'node:path';
import { heavyToolOf } from './tiers.ts';

const logDir = process.env.PRESSO_TEST_RUN_LOG;
if (logDir) install(logDir);

function install(dir: string): void {
  const script = process.argv[1] ?? '';
  const grouped = process.env.PRESSO_TEST_GROUP !== undefined;
  const ownFile = !grouped && script.endsWith('.test.ts') ? relative(process.cwd(), script) : undefined;
  if (ownFile !== undefined) {
    process.env.PRESSO_TEST_FILE = ownFile;
    process.once('exit', () => writeTiming(dir, ownFile));
  }
  const note = (words: readonly unknown[]) => {
    const tool = heavyToolOf(words.filter((w): w is string => typeof w === 'string'));
    const file = process.env.PRESSO_TEST_FILE;
    if (tool === undefined || file === undefined) return;
    appendFileSync(join(dir, 'spawns.jsonl'), `${JSON.stringify({ file, tool })}\n`);
  };
  type Spawner = { spawn(options: { file?: string; args?: string[] }): unknown };
  const proto = childProcess.ChildProcess.prototype as unknown as Spawner;
  const spawnAsync = proto.spawn;
  proto.spawn = function (this: unknown, options) {
    note([options.file, ...(options.args ?? [])]);
    return spawnAsync.call(this, options);
  };
  // The synchronous calls do not go through ChildProcess; each exported one is wrapped.
  const sync = childProcess as unknown as Record<string, (...args: unknown[]) => unknown>;
  for (const name of ['spawnSync', 'execFileSync'] as const) {
    const original = sync[name]!;
    sync[name] = (...args: unknown[]) => {
      note([args[0], ...(Array.isArray(args[1]) ? args[1] : [])]);
      return original(...args);
    };
  }
  const execSync = sync.execSync!;
  sync.execSync = (...args: unknown[]) => {
    note(String(args[0]).split(/\s+/));
    return execSync(...args);
  };
  syncBuiltinESMExports();
  // The service's tool runner may start tools through posix_spawn (src/processors/shared/spawn-process.ts),
  // not through ChildProcess: it publishes every start here.
  subscribe('presso:tool-spawn', (message) => {
    const { file, args } = message as { file: string; args: readonly string[] };
    note([file, ...args]);
  });
}

/** utime, stime, cutime, cstime of this process, in ms (fields 14-17 of /proc/self/stat, in clock ticks). */
function cpuMs(): number {
  const stat = readFileSync('/proc/self/stat', 'utf8');
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  const ticks = [11, 12, 13, 14].reduce((sum, i) => sum + Number(fields[i]), 0);
  return ticks * 10; // USER_HZ is 100 on Linux
}

function writeTiming(dir: string, file: string): void {
  const line = { file, wallMs: Math.round(performance.now()), cpuMs: cpuMs() };
  appendFileSync(join(dir, 'files.jsonl'), `${JSON.stringify(line)}\n`);
}
