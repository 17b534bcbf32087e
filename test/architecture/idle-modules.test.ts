/**
 * An idle embedded `presso serve` loads none of what only the scaled mode, an external store, a website
 * bundle or a new certificate needs (test/support/idle-modules.ts lists them): each is imported where it is
 * first used, and loading them all at start-up cost the idle server ~60 MB of RSS (bench/memory/idle-rss.ts).
 * Every module the server child loads is logged by a loader hook; the first start, which must make its
 * self-signed certificate, shows the hook does see a lazily imported package when it is needed.
 */
import assert from 'node:assert/strict';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { LAZY_PACKAGES, lazyModulesLoaded, moduleLogEnv, readModuleLog } from '../support/idle-modules.ts';
import { spawnPresso } from '../support/presso.ts';

test('the idle embedded server loads no scaled-mode, store SDK, bundle minifier or certificate module', async () => {
  const work = await mkdtemp(join(tmpdir(), 'presso-idle-modules-'));
  const dataDir = join(work, 'data');
  try {
    const firstLog = join(work, 'first.log');
    const first = await spawnPresso(dataDir, moduleLogEnv(firstLog));
    await first.kill('SIGTERM');
    // The first start makes its certificate, so it loads the generator and nothing else of the list.
    assert.deepEqual(await lazyModulesLoaded(firstLog), [...LAZY_PACKAGES.tls]);

    const restartLog = join(work, 'restart.log');
    const restarted = await spawnPresso(dataDir, moduleLogEnv(restartLog));
    await restarted.kill('SIGTERM');
    assert.deepEqual(await lazyModulesLoaded(restartLog), []);
    // The log is the server's: its web framework, image library and embedded backends are in it.
    const { packages, sources } = await readModuleLog(restartLog);
    for (const name of ['fastify', 'sharp']) assert.ok(packages.has(name), `${name} is in the log`);
    assert.ok(sources.has('src/runtime/embedded.ts'));
  } finally {
    await rm(work, { recursive: true, force: true });
  }
});
