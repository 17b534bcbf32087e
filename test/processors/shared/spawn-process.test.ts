/**
 * The tool runner's process start (src/processors/shared/spawn-process.ts), one contract for both methods:
 * posix_spawn through the addon and Node's fork-based spawn must start the same child the same way (stdio,
 * cwd, exactly the environment given, a session of its own, default signal dispositions, no descriptor of
 * this process but the stdio) and report its end with the same events.
 */
import assert from 'node:assert/strict';
import { closeSync, existsSync, openSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Readable } from 'node:stream';
import { describe, test } from 'node:test';
import {
  type SpawnOptions,
  spawnMethod,
  spawnProcessWith,
  type ToolProcess,
} from '../../../src/processors/shared/spawn-process.ts';
import { useScratch } from '../../support/scratch.ts';
import { until } from '../../support/until.ts';

const scratch = useScratch('presso-spawn-');
const ADDON = join(import.meta.dirname, '../../../native/spawn/build/Release/spawn.node');

interface Ended {
  code: number | null;
  signal: NodeJS.Signals | null;
  stdout: string;
  stderr: string;
  events: string[];
}

function collect(stream: Readable | null): () => string {
  const chunks: Buffer[] = [];
  stream?.on('data', (chunk: Buffer) => chunks.push(chunk));
  return () => Buffer.concat(chunks).toString('utf8');
}

function ended(child: ToolProcess): Promise<Ended> {
  const events: string[] = [];
  const stdout = collect(child.stdout);
  const stderr = collect(child.stderr);
  return new Promise((resolve, reject) => {
    let exit: [number | null, NodeJS.Signals | null] = [null, null];
    child.on('error', reject);
    child.on('exit', (code: number | null, signal: NodeJS.Signals | null) => {
      events.push('exit');
      exit = [code, signal];
    });
    child.on('close', () => {
      events.push('close');
      resolve({ code: exit[0], signal: exit[1], stdout: stdout(), stderr: stderr(), events });
    });
  });
}

/** This process's descriptors above 2 without O_CLOEXEC (fdinfo flags are octal; O_CLOEXEC is 02000000). */
function inheritable(): string[] {
  return readdirSync('/proc/self/fd').filter((fd) => {
    if (Number(fd) <= 2) return false;
    let info = '';
    try {
      info = readFileSync(`/proc/self/fdinfo/${fd}`, 'utf8');
    } catch {
      return false; // closed since the listing (the listing's own descriptor)
    }
    const flags = /^flags:\s+([0-7]+)$/m.exec(info);
    return flags !== null && (Number.parseInt(flags[1]!, 8) & 0o2000000) === 0;
  });
}

/** Whether `pid` is alive: not gone and not a zombie (/proc/<pid>/stat's state after the name). */
function running(pid: number): boolean {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return stat.slice(stat.lastIndexOf(')') + 2, stat.lastIndexOf(')') + 3) !== 'Z';
  } catch {
    return false;
  }
}

const options = (over: Partial<SpawnOptions> = {}): SpawnOptions => ({
  cwd: scratch(),
  env: { PATH: '/usr/bin:/bin' },
  stdio: ['ignore', 'pipe', 'pipe'],
  ...over,
});

for (const method of ['posix_spawn', 'fork'] as const) {
  describe(`spawnProcess by ${method}`, () => {
    const run = (args: string[], over?: Partial<SpawnOptions>) =>
      spawnProcessWith(method, '/bin/sh', ['-c', ...args], options(over));

    test('stdout, stderr and the exit code; exit before close', async () => {
      const result = await ended(run(['echo out; echo err >&2; exit 3']));
      assert.deepEqual(result, {
        code: 3,
        signal: null,
        stdout: 'out\n',
        stderr: 'err\n',
        events: ['exit', 'close'],
      });
    });

    test('a pipe to stdin; ignored stdin reads as empty', async () => {
      const child = run(['cat'], { stdio: ['pipe', 'pipe', 'pipe'] });
      child.stdin?.end('to the tool\n');
      assert.equal((await ended(child)).stdout, 'to the tool\n');
      assert.equal((await ended(run(['cat; echo done']))).stdout, 'done\n');
    });

    test('a descriptor of this process as stdout', async () => {
      const path = join(scratch(), 'out.txt');
      const fd = openSync(path, 'w');
      const child = run(['echo to the file'], { stdio: ['ignore', fd, 'pipe'] });
      closeSync(fd);
      assert.equal((await ended(child)).code, 0);
      assert.equal(readFileSync(path, 'utf8'), 'to the file\n');
    });

    test('the working directory and exactly the environment given', async () => {
      const cwd = scratch();
      const result = await ended(
        run(['pwd; env | sort'], { cwd, env: { PATH: '/usr/bin:/bin', ONE: 'a b' } }),
      );
      const lines = result.stdout.trim().split('\n');
      assert.equal(lines[0], cwd);
      assert.deepEqual(
        lines.slice(1).filter((l) => !l.startsWith('PWD=') && !l.startsWith('SHLVL=') && !l.startsWith('_=')),
        ['ONE=a b', 'PATH=/usr/bin:/bin'],
      );
    });

    test('a session of its own, no signal ignored or blocked, only the stdio descriptors', async () => {
      const result = await ended(
        run(['cut -d" " -f6 /proc/self/stat; grep -E "^Sig(Ign|Blk)" /proc/self/status; ls /proc/self/fd']),
      );
      const [session, blocked, ignored, ...fds] = result.stdout.trim().split('\n');
      assert.notEqual(Number(session), 0);
      assert.notEqual(readFileSync('/proc/self/stat', 'utf8').split(' ')[5], session);
      // glibc's posix_spawn leaves its two reserved signals (32 and 33: thread cancellation and setxid, which
      // no one else may send) ignored in the child; the new program's glibc installs its own handlers for
      // them when it needs them. Every other signal is at its default, SIGPIPE included (Node ignores it).
      const glibcReserved = 0x180000000n;
      assert.equal(BigInt(`0x${ignored?.split('\t')[1]}`) & ~glibcReserved, 0n, ignored);
      assert.equal(blocked, 'SigBlk:\t0000000000000000');
      // Besides the stdio: what this process holds without close-on-exec (the runner's environment may
      // leave such descriptors: both methods pass them on), and ls's own directory descriptor.
      const expected = new Set(['0', '1', '2', ...inheritable()]);
      const extra = fds.filter((fd) => !expected.has(fd));
      assert.equal(extra.length, 1, `only ls's descriptor besides those: ${fds.join(' ')}`);
    });

    test('a kill of its process group ends it and what it started; the end names the signal', async () => {
      const child = run(['sleep 30 & echo $!; wait']);
      const done = ended(child);
      const grandchild = await new Promise<number>((resolve) =>
        child.stdout?.once('data', (chunk: Buffer) => resolve(Number(chunk.toString().trim()))),
      );
      process.kill(-child.pid!, 'SIGTERM');
      const result = await done;
      assert.deepEqual([result.code, result.signal], [null, 'SIGTERM']);
      // The group's kill reached the grandchild too (it ends, as a zombie at most, once the signal lands).
      await until(() => !running(grandchild), `process ${grandchild} to end`);
    });

    test('a program that does not exist is an ENOENT error event, after listeners are attached', async () => {
      const child = spawnProcessWith(method, join(scratch(), 'missing'), [], options());
      const error = await new Promise<NodeJS.ErrnoException>((resolve) => child.on('error', resolve));
      assert.equal(error.code, 'ENOENT');
    });
  });
}

test('the runner uses posix_spawn wherever the addon is built (scripts/setup.sh builds it on Linux)', () => {
  assert.equal(spawnMethod, existsSync(ADDON) ? 'posix_spawn' : 'fork');
  if (process.platform === 'linux') assert.ok(existsSync(ADDON), 'native/spawn is built');
});
