/**
 * The guard over the whole CI run (test/run/guard.sh, used by .ci/run): a run that hangs ends at the time-out,
 * says which test file was running, and leaves no process behind, even one its test file started; a run that
 * ends keeps its exit status, and what it left running is killed and named. Exercised on a tiny fake run.
 */
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { after, describe, test } from 'node:test';
import { until } from '../support/until.ts';

const GUARD = resolve(import.meta.dirname, '..', 'run', 'guard.sh');
const dir = mkdtempSync(join(tmpdir(), 'presso-guard-'));
after(() => rmSync(dir, { recursive: true, force: true }));

/**
 * Runs the guard on `command`, as a run of its own: without this file's test-runner context (a nested
 * `node --test` would skip its files) and without the outer run's probe log (the fake files are not timed).
 */
function guarded(command: string[], env: Record<string, string>) {
  const { PRESSO_TEST_RUN_LOG: _log, NODE_TEST_CONTEXT: _context, ...rest } = process.env;
  const child = spawn(GUARD, command, { env: { ...rest, ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
  let stderr = '';
  child.stderr.on('data', (chunk: Buffer) => {
    stderr += chunk.toString();
  });
  child.stdout.resume();
  return new Promise<{ status: number | null; stderr: string }>((ok) =>
    child.once('close', (status) => ok({ status, stderr })),
  );
}

const gone = (pid: number) => until(() => !existsSync(`/proc/${pid}`), `process ${pid} to be gone`);

describe('the CI run guard', () => {
  test('a hung run ends at the time-out, names the file that was running, and kills what it started', async () => {
    const pidFile = join(dir, 'sleep.pid');
    const file = join(dir, 'hangs-forever.test.ts');
    writeFileSync(
      file,
      "import { spawn } from 'node:child_process';\nimport { writeFileSync } from 'node:fs';\n" +
        "const child = spawn('sleep', ['300'], { stdio: 'ignore' });\n" +
        `writeFileSync(${JSON.stringify(pidFile)}, String(child.pid));\n` +
        'setInterval(() => {}, 1000);\n',
    );
    const run = await guarded([process.execPath, '--test', file], {
      PRESSO_CI_TIMEOUT: '3s',
      PRESSO_CI_KILL_GRACE: '2s',
    });
    assert.equal(run.status, 124, run.stderr);
    assert.match(
      run.stderr,
      /time-out: the run passed 3s; test files still running:\n {2}\S*hangs-forever\.test\.ts/,
    );
    await gone(Number(readFileSync(pidFile, 'utf8')));
  });

  test('a run that ends keeps its status, and a process it left behind is killed and named', async () => {
    const pidFile = join(dir, 'orphan.pid');
    const run = await guarded(['bash', '-c', `sleep 300 & echo $! > ${pidFile}; exit 3`], {});
    assert.equal(run.status, 3);
    assert.match(run.stderr, /left 1 process\(es\) behind; killed:\n\s*\d+ sleep 300/);
    await gone(Number(readFileSync(pidFile, 'utf8')));
  });
});
