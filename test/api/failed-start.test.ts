/**
 * A server start that fails leaves nothing behind (review 2, §3.3): `spawnPresso` used to reject on its timer
 * without killing the child it spawned, and no caller held that child, so an orphaned `presso serve` kept its
 * test file alive (its stdout still open) for half an hour and held back every later result.
 */
import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { spawnPresso } from '../support/presso.ts';
import { scaledMs } from '../support/time-scale.ts';

// The time-out turns a regression (the rejection waiting on a child nobody kills) into a failure, not a hang.
test('a start that never becomes ready kills and reaps the server it spawned', {
  timeout: scaledMs(60_000),
}, async () => {
  const dataDir = await mkdtemp(join(tmpdir(), 'presso-failed-start-'));
  try {
    // 1 ms: no server says it listens that soon, so the start time-out is what ends this start.
    const error = await spawnPresso(dataDir, {}, undefined, 1).then(
      () => assert.fail('the server cannot be ready within 1 ms'),
      (e: unknown) => e as Error,
    );
    const pid = Number(/presso \(pid (\d+)\) did not start within 1 ms/.exec(error.message)?.[1]);
    assert.ok(pid > 0, error.message);
    assert.equal(existsSync(`/proc/${pid}`), false, `process ${pid} is gone (killed and reaped)`);
  } finally {
    await rm(dataDir, { recursive: true, force: true });
  }
});
