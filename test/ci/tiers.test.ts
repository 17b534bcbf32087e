/**
 * The test tiers (test/run/tiers.ts) are checked by running them: the probe sees a heavy tool a test file
 * starts, through the tool runner's prlimit and bubblewrap, and the runner fails a fast-tier file that started
 * one, naming it. Paths given to the runner replace the default set. Exercised on tiny fake test files.
 */
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { after, describe, test } from 'node:test';
import { pathToFileURL } from 'node:url';
import { HEAVY, heavyToolOf, tierOf } from '../run/tiers.ts';

const root = resolve(import.meta.dirname, '..', '..');
const dir = mkdtempSync(join(tmpdir(), 'presso-tiers-'));
after(() => rmSync(dir, { recursive: true, force: true }));

/** A fake test file that runs ffprobe once, synchronously, and ffmpeg once through spawn. */
const startsFfmpeg = join(dir, 'starts-ffmpeg.test.ts');
writeFileSync(
  startsFfmpeg,
  "import { execFileSync, spawn } from 'node:child_process';\nimport { test } from 'node:test';\n" +
    "test('runs ffmpeg', async () => {\n  execFileSync('ffprobe', ['-version'], { stdio: 'ignore' });\n" +
    "  const child = spawn('ffmpeg', ['-version'], { stdio: 'ignore' });\n" +
    "  await new Promise((ok) => child.once('exit', ok));\n});\n",
);

/** Runs node with `args` as a run of its own: no outer test context, no outer probe log. */
function run(args: string[], env: Record<string, string> = {}) {
  // A run of its own: not the outer run's log, test context, file or group (this file may run in a group).
  const {
    PRESSO_TEST_RUN_LOG: _log,
    NODE_TEST_CONTEXT: _context,
    PRESSO_TEST_FILE: _file,
    PRESSO_TEST_GROUP: _group,
    ...rest
  } = process.env;
  const child = spawn(process.execPath, args, { cwd: root, env: { ...rest, ...env }, stdio: 'pipe' });
  let output = '';
  for (const stream of [child.stdout, child.stderr]) stream.on('data', (chunk: Buffer) => (output += chunk));
  return new Promise<{ status: number | null; output: string }>((ok) =>
    child.once('close', (status) => ok({ status, output })),
  );
}

describe('test tiers', () => {
  test('a heavy tool is recognised through prlimit and bubblewrap, and a bind mount is not a tool', () => {
    const sandboxed = ['/usr/bin/prlimit', '--as=1', '--', '/usr/bin/bwrap', '--ro-bind', '/etc/libreoffice'];
    assert.equal(heavyToolOf([...sandboxed, '/etc/libreoffice', '/usr/bin/ffmpeg', '-i', 'x']), 'ffmpeg');
    assert.equal(heavyToolOf([...sandboxed, '/etc/libreoffice', '/usr/bin/soffice']), 'LibreOffice');
    assert.equal(heavyToolOf([...sandboxed, '/etc/libreoffice', '/usr/bin/cwebp', '-q', '80']), undefined);
    assert.equal(heavyToolOf(['/usr/bin/chromium', '--headless']), 'Chromium');
    assert.equal(
      heavyToolOf(['/usr/bin/node', `${root}/src/cli/main.ts`, 'serve']),
      'a second Presso process',
    );
  });

  test('the probe writes down the heavy tools a test file starts, and its wall and CPU time', async () => {
    const log = mkdtempSync(join(dir, 'log-'));
    const probe = pathToFileURL(join(root, 'test/run/probe.ts')).href;
    const result = await run([`--import=${probe}`, '--test', startsFfmpeg], { PRESSO_TEST_RUN_LOG: log });
    assert.equal(result.status, 0, result.output);
    const spawns = readFileSync(join(log, 'spawns.jsonl'), 'utf8')
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l));
    assert.equal(spawns.length, 2, 'ffprobe (synchronous) and ffmpeg (spawn)');
    for (const s of spawns) {
      assert.equal(s.tool, 'ffmpeg');
      assert.ok(s.file.endsWith('starts-ffmpeg.test.ts'), s.file);
    }
    const [timing] = readFileSync(join(log, 'files.jsonl'), 'utf8')
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l));
    assert.ok(timing.file.endsWith('starts-ffmpeg.test.ts') && timing.wallMs > 0 && timing.cpuMs >= 0);
  });

  test('the runner fails a fast-tier file that started a heavy tool, and runs only the files it is given', async () => {
    const result = await run(['test/run/run-tests.ts', '--tier=fast', startsFfmpeg]);
    assert.equal(result.status, 1, result.output);
    assert.match(
      result.output,
      /starts-ffmpeg\.test\.ts is not in the heavy tier but started ffmpeg: list it/,
    );
    assert.match(result.output, /== 1 fast, 0 server and 0 heavy files: \d+ at once, at most \d+ heavy/);
    assert.match(result.output, /slowest test files \(wall, CPU incl\. tools\), of 1\n/);
    assert.match(result.output, /== test run: [\d.]+ s wall, [\d.]+ s CPU/);
  });

  test('a file that starts a real server is in the server tier, found by reading it', () => {
    assert.equal(tierOf('test/api/upload.test.ts'), 'server');
    assert.equal(tierOf('test/http/upload.test.ts'), 'fast');
    assert.equal(tierOf('test/processors/video/video.test.ts'), 'heavy');
  });

  test('every entry of the heavy list names a test file or folder that exists', () => {
    for (const entry of HEAVY) assert.ok(existsSync(join(root, entry)), entry);
  });
});
