/**
 * The CLI's one-shot commands print JSON for scripts on standard output; their logs (a connection warning
 * while closing, say) go to standard error, at `warn` or above, so `presso account create | jq` always parses.
 * Found by a scaled-mode test whose `account create` output had a log line after its JSON.
 */
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { resolve } from 'node:path';
import { test } from 'node:test';
import { promisify } from 'node:util';

const root = resolve(import.meta.dirname, '..', '..');
const run = promisify(execFile);

test('the CLI logger writes to standard error only, at warn or above unless the level is stricter', async () => {
  const script = [
    "const { createCliLogger } = await import('./src/runtime/logger.ts');",
    "createCliLogger('info').warn('warn-at-info');",
    "createCliLogger('info').info('info-at-info');",
    "createCliLogger('debug').debug('debug-at-debug');",
    "createCliLogger('error').warn('warn-at-error');",
    "createCliLogger('error').error('error-at-error');",
    "createCliLogger('silent').fatal('fatal-at-silent');",
    "process.stdout.write('{}\\n');",
  ].join('\n');
  const { stdout, stderr } = await run(process.execPath, ['--input-type=module', '-e', script], {
    cwd: root,
  });
  assert.equal(stdout, '{}\n', 'standard output holds only what the command prints');
  const messages = stderr
    .trim()
    .split('\n')
    .map((line) => (JSON.parse(line) as { msg: string }).msg);
  assert.deepEqual(messages, ['warn-at-info', 'error-at-error']);
});
