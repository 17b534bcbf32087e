/** The CLI reports a wrong option as a usage error (exit 2), not as an HTTP error with an exit code in its status. */
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';

const root = join(import.meta.dirname, '..', '..');

test('account create with a bad --rate-limit exits 2 with the reason and the usage', async () => {
  const dataDir = await mkdtemp(join(tmpdir(), 'presso-cli-'));
  try {
    const result = await new Promise<{ code: number | null; stderr: string }>((resolve) => {
      const child = execFile(
        process.execPath,
        [join(root, 'src/cli/main.ts'), 'account', 'create', '--name', 'x', '--rate-limit', 'lots'],
        { cwd: root, env: { ...process.env, PRESSO_DATA_DIR: dataDir, PRESSO_LOG_LEVEL: 'silent' } },
        (_error, _stdout, stderr) => resolve({ code: child.exitCode, stderr }),
      );
    });
    assert.equal(result.code, 2);
    assert.match(result.stderr, /--rate-limit must be a positive integer/);
    assert.match(result.stderr, /Usage: presso/);
  } finally {
    await rm(dataDir, { recursive: true, force: true });
  }
});
