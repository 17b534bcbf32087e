/**
 * A scaled-out process that cannot start must end (and be restarted by its supervisor), not linger holding
 * connections or, worse, take jobs with no API in front of it. Registered by multi-process.test.ts, whose
 * deployment gives the environment and a port already taken. The time-out is a hang guard only.
 */
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { join, resolve } from 'node:path';
import { test } from 'node:test';
import { freePort } from '../support/ports.ts';
import { scaledMs } from '../support/time-scale.ts';

const repoRoot = resolve(import.meta.dirname, '..', '..');

/** `env()`: the deployment's variables; `takenPort()`: a port a running API listens on; `dir`: scratch. */
export function failedStartTest(
  env: () => Record<string, string>,
  takenPort: () => number,
  dir: () => string,
) {
  test('a process whose start fails ends with status 1: PostgreSQL unreachable, or its port taken', async () => {
    const serve = (dataDir: string, extra: Record<string, string>) =>
      spawnSync(process.execPath, [join(repoRoot, 'src/cli/main.ts'), 'serve'], {
        cwd: repoRoot,
        encoding: 'utf8',
        timeout: scaledMs(60_000),
        env: {
          ...process.env,
          ...env(),
          PRESSO_DATA_DIR: dataDir,
          PRESSO_HOST: '127.0.0.1',
          PRESSO_LOG_LEVEL: 'silent',
          ...extra,
        },
      });
    const noDatabase = serve(join(dir(), 'no-database'), {
      PRESSO_DATABASE_URL: `postgres://postgres@127.0.0.1:${await freePort()}/presso`,
      PRESSO_PORT: String(await freePort()),
    });
    assert.deepEqual([noDatabase.status, noDatabase.signal], [1, null], noDatabase.stderr);
    const portTaken = serve(join(dir(), 'port-taken'), {
      PRESSO_ROLE: 'all',
      PRESSO_PORT: String(takenPort()),
    });
    assert.deepEqual([portTaken.status, portTaken.signal], [1, null], portTaken.stderr);
    assert.match(portTaken.stderr, /EADDRINUSE/);
  });
}
