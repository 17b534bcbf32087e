/**
 * The runner's pool (test/run/pool.ts), on tiny fake test files: a failing or crashing file fails the run and
 * is listed again at the end, the counts add up over files, and no more heavy files run at once than allowed
 * while the light files behind them go ahead (a heavy file here cannot end until a light file has run).
 */
import assert from 'node:assert/strict';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { after, test } from 'node:test';
import { CpuMeter } from '../../bench/shared/cpu-meter.ts';
import { runPool } from '../run/pool.ts';

const root = resolve(import.meta.dirname, '..', '..');
/** The pool's report of each file, kept out of this file's own output. */
const quiet = () => {};
const dir = mkdtempSync(join(tmpdir(), 'presso-pool-'));
after(() => rmSync(dir, { recursive: true, force: true }));

/** A fake test file in the scratch folder, returned as its path. */
function file(name: string, text: string): string {
  const path = join(dir, name);
  writeFileSync(
    path,
    `import assert from 'node:assert/strict';\nimport { test } from 'node:test';\n${text}\n`,
  );
  return path;
}

/** The environment of a run of its own: no outer test context. */
function env(extra: Record<string, string> = {}): NodeJS.ProcessEnv {
  const {
    NODE_TEST_CONTEXT: _context,
    PRESSO_TEST_RUN_LOG: _log,
    PRESSO_TEST_FILE: _file,
    PRESSO_TEST_GROUP: _group,
    ...rest
  } = process.env;
  return { ...rest, ...extra };
}

test('a failing and a crashing file fail the run, are named at the end, and the counts add up', async () => {
  const passing = file('passing.test.ts', "test('a', () => {});\ntest('b', () => {});");
  const failing = file('failing.test.ts', "test('c', () => {});\ntest('d', () => assert.equal(1, 2));");
  const crashing = file('crashing.test.ts', "throw new Error('broken at load');");
  const queue = [passing, failing, crashing].map((f) => ({ file: f, heavy: false }));
  const { counts, failed } = await runPool(root, queue, { jobs: 2, heavyJobs: 1 }, env(), quiet);
  assert.deepEqual(failed.map((f) => f.file).sort(), [crashing, failing].sort());
  assert.match(failed.find((f) => f.file === failing)!.failing, /✖ failing tests:[\s\S]*✖ d/);
  assert.match(failed.find((f) => f.file === crashing)!.failing, /broken at load/);
  assert.equal(counts.tests, 4);
  assert.equal(counts.pass, 3);
  assert.equal(counts.fail, 1);
});

test('at most the heavy limit of heavy files at once, and light files go ahead of waiting heavy ones', async () => {
  const log = join(dir, 'events.log');
  const release = join(dir, 'release');
  writeFileSync(log, '');
  const heavy = (name: string) =>
    file(
      `${name}.test.ts`,
      "import { appendFileSync, existsSync } from 'node:fs';\n" +
        `test('${name}', async () => {\n` +
        `  appendFileSync(process.env.LOG!, 'start ${name}\\n');\n` +
        '  while (!existsSync(process.env.RELEASE!)) await new Promise((ok) => setTimeout(ok, 20));\n' +
        `  appendFileSync(process.env.LOG!, 'end ${name}\\n');\n});`,
    );
  const light = file(
    'light.test.ts',
    "import { appendFileSync, writeFileSync } from 'node:fs';\n" +
      "test('light', () => {\n  appendFileSync(process.env.LOG!, 'light\\n');\n" +
      "  writeFileSync(process.env.RELEASE!, '');\n});",
  );
  const queue = [
    { file: heavy('h1'), heavy: true },
    { file: heavy('h2'), heavy: true },
    { file: heavy('h3'), heavy: true },
    { file: light, heavy: false },
  ];
  const { failed } = await runPool(
    root,
    queue,
    { jobs: 4, heavyJobs: 1 },
    env({ LOG: log, RELEASE: release }),
    quiet,
  );
  assert.deepEqual(failed, []);
  const events = readFileSync(log, 'utf8').trim().split('\n');
  assert.equal(events.length, 7, events.join(', '));
  let heavyRunning = 0;
  for (const event of events) {
    if (event.startsWith('start')) heavyRunning++;
    if (event.startsWith('end')) heavyRunning--;
    assert.ok(heavyRunning <= 1, `two heavy files at once: ${events.join(', ')}`);
  }
  assert.ok(events.indexOf('light') < events.indexOf('end h1'), 'the light file ran while h1 waited');
});

test("with a meter, a file's CPU counts what it ran inside bubblewrap, which rusage misses", async () => {
  // ~1.5 CPU-s of shell arithmetic in a sandbox with its own PID namespace, as the tool runner starts tools.
  const busy = file(
    'sandboxed.test.ts',
    "import { execFileSync } from 'node:child_process';\n" +
      "test('busy in a sandbox', () => {\n" +
      "  const loop = 'i=0; while [ $i -lt 1500000 ]; do i=$((i+1)); done';\n" +
      "  execFileSync('bwrap', ['--ro-bind', '/', '/', '--unshare-pid', '--', 'sh', '-c', loop]);\n" +
      '  const own = process.resourceUsage();\n' +
      "  assert.ok(own.userCPUTime < 1_000_000, 'the test process itself stays idle');\n});",
  );
  const meter = CpuMeter.open('pool-test');
  try {
    const { cpuMs, failed } = await runPool(
      root,
      [{ file: busy, heavy: false }],
      { jobs: 1, heavyJobs: 1 },
      env(),
      quiet,
      meter,
    );
    assert.deepEqual(failed, []);
    assert.ok((cpuMs.get(busy) ?? 0) > 800, `the sandboxed loop's CPU is counted: ${cpuMs.get(busy)} ms`);
  } finally {
    await meter.close();
  }
});

test('a file that leaves a process running is named, with the process, and the process is killed', async () => {
  const leaving = file(
    'leaving.test.ts',
    "import { spawn } from 'node:child_process';\n" +
      "test('starts a sleeper and forgets it', () => {\n" +
      "  spawn('sleep', ['600'], { detached: true, stdio: 'ignore' }).unref();\n});",
  );
  const meter = CpuMeter.open('pool-test', { settleMs: 200 });
  let output = '';
  try {
    const { failed } = await runPool(
      root,
      [{ file: leaving, heavy: false }],
      { jobs: 1, heavyJobs: 1 },
      env(),
      (text) => {
        output += text;
      },
      meter,
    );
    assert.deepEqual(failed, []);
  } finally {
    await meter.close();
  }
  const warning = output.split('\n').find((line) => line.startsWith('⚠')) ?? '';
  assert.ok(warning.includes(leaving) && warning.includes('sleep (pid '), output);
  const pid = warning.slice(warning.indexOf('sleep (pid ') + 'sleep (pid '.length).split(')')[0];
  // Killed: gone, or a zombie its new parent has not reaped yet.
  const state = existsSync(`/proc/${pid}`)
    ? readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]?.[0]
    : 'gone';
  assert.ok(state === 'gone' || state === 'Z', `the sleeper was killed: state ${state}`);
});

test('a group runs its files in one process: their counts add up, and a failing one fails the group', async () => {
  const first = file('first.test.ts', "test('e', () => {});\ntest('f', () => {});");
  const second = file(
    'second.test.ts',
    // Each file sees the other's module state: one process, not one each.
    "test('g', () => assert.equal(process.argv.length > 2, true));\ntest('h', () => assert.equal(1, 2));",
  );
  const queue = [{ file: 'fast group 1 of 1', heavy: false, members: [first, second] }];
  const { counts, failed, wallMs } = await runPool(root, queue, { jobs: 1, heavyJobs: 1 }, env(), quiet);
  assert.deepEqual(
    failed.map((f) => f.file),
    ['fast group 1 of 1'],
  );
  assert.match(failed[0]!.failing, /✖ h/);
  assert.equal(counts.tests, 4);
  assert.equal(counts.pass, 3);
  assert.ok(wallMs.has('fast group 1 of 1'));
});
