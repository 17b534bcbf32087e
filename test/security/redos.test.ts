/**
 * Regular expressions cannot freeze the service (issue 21, finding 5). Every pattern that attacker text
 * reaches (redos-inventory.ts) is fed a pathological input of 50-100 KB in a child process limited to 20 s
 * of its own CPU time: a linear pattern finishes them all in well under a second of work, a super-linear one
 * runs into the limit (the old SVG tag pattern took two minutes on 8 KB). Through the API, a server given
 * the SVG of the audit (`<a` repeated without `>`) refuses it while it keeps answering other requests.
 * The check of src/ for new dangerous patterns is regex-source.test.ts.
 */
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, test } from 'node:test';
import { promisify } from 'node:util';
import {
  createAccountCli,
  type SpawnedPresso,
  spawnPresso,
  type TestClient,
  testClient,
} from '../support/presso.ts';
import { scaledMs } from '../support/time-scale.ts';
import { REDOS_INVENTORY } from './redos-inventory.ts';

const execFileAsync = promisify(execFile);
const CHILD = join(import.meta.dirname, 'redos-child.ts');
/** The child's own CPU time (RLIMIT_CPU): generous, the inventory takes a fraction of a second. */
const CPU_SECONDS = 20;
/** Last resort against a hang that the CPU limit cannot see; never reached by a passing run. */
const HANG_GUARD_MS = scaledMs(180_000);

describe('ReDoS', () => {
  test('every input-facing pattern is linear on its pathological inputs (child process, CPU limit)', {
    timeout: HANG_GUARD_MS,
  }, async () => {
    const { stdout, code, signal } = await execFileAsync(
      'prlimit',
      [`--cpu=${CPU_SECONDS}`, process.execPath, CHILD],
      { maxBuffer: 1024 * 1024 },
    ).then(
      (r) => ({ stdout: r.stdout, code: 0, signal: null }),
      (e: { stdout?: string; code?: number; signal?: string }) => ({
        stdout: e.stdout ?? '',
        code: e.code,
        signal: e.signal ?? null,
      }),
    );
    const done = new Set(
      stdout
        .split('\n')
        .filter((l) => l.startsWith('done '))
        .map((l) => Number(l.slice(5))),
    );
    const stuck = REDOS_INVENTORY.findIndex((_, i) => !done.has(i));
    assert.equal(
      stuck,
      -1,
      `stopped (exit ${code}, signal ${signal}) in: ${REDOS_INVENTORY[stuck]?.name ?? ''}`,
    );
    assert.equal(code, 0);
  });

  describe('an SVG of unclosed tags through the API', () => {
    let child: SpawnedPresso | undefined;
    let client: TestClient | undefined;
    let dataDir = '';
    after(async () => {
      // The server first: a client closing while a request waits on a frozen server would wait with it.
      await child?.kill('SIGKILL');
      await client?.close().catch(() => {});
      if (dataDir !== '') await rm(dataDir, { recursive: true, force: true });
    });

    test('is refused while the server keeps answering', { timeout: HANG_GUARD_MS }, async () => {
      // The server in its own process: a frozen event loop there cannot stop this test's hang guard.
      dataDir = await mkdtemp(join(tmpdir(), 'presso-redos-'));
      const { key } = await createAccountCli(dataDir, 'redos');
      child = await spawnPresso(dataDir);
      client = testClient(child.url, key, child.cert);
      // 16 KB: the old tag pattern was cubic (8 KB held the event loop for two minutes, this much ~16).
      const svg = join(dataDir, 'unclosed.svg');
      await writeFile(svg, `<svg xmlns="http://www.w3.org/2000/svg">${'<a'.repeat(8000)}`);
      const submitted = await client.upload(svg, { async: true });
      assert.equal(submitted.status, 202);
      const { id } = (await submitted.json()) as { id: string };
      // Another request while the SVG is checked: answered, then the job ends refused with a clear reason.
      const health = await client.request('/healthz');
      assert.equal(health.status, 200);
      const job = (await client.waitForJob(id)) as { status: string; message?: string };
      assert.equal(job.status, 'failed', JSON.stringify(job));
      assert.match(job.message ?? '', /^The SVG could not be parsed/);
      assert.equal((await client.request('/healthz')).status, 200);
    });
  });
});
