/**
 * A job that runs out of its time budget fails once and for good, and the service answers everyone else
 * while it runs: an SVG that takes a minute to draw is killed at the budget (3 s here), the job ends
 * `failed` after one attempt with a message that says why, and `/healthz` and another job (an archive, with
 * its own budget) are served throughout.
 */
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { readdir, readFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { startTestPresso, type TestPresso } from '../support/presso.ts';
import { settled, until } from '../support/until.ts';

/** 894 bytes: 1,000 nested <use> of a translucent circle over a 36 MP canvas. */
function slowSvg(): Buffer {
  const use = (id: string, times: number) => `<use xlink:href="#${id}"/>`.repeat(times);
  return Buffer.from(
    '<svg xmlns="http://www.w3.org/2000/svg" xmlns:xlink="http://www.w3.org/1999/xlink" width="6000" height="6000">' +
      '<defs><circle id="c" cx="3000" cy="3000" r="4000" fill="#f00" fill-opacity="0.01"/>' +
      `<g id="a">${use('c', 10)}</g><g id="b">${use('a', 10)}</g></defs>${use('b', 10)}</svg>`,
  );
}

/** A TAR of one small text file, made by tar. */
function tinyTar(): Buffer {
  const dir = mkdtempSync(join(tmpdir(), 'presso-time-limit-'));
  try {
    writeFileSync(join(dir, 'notes.txt'), 'words '.repeat(2000));
    return execFileSync('tar', ['-cf', '-', 'notes.txt'], { cwd: dir });
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/**
 * Pids of live processes whose command line names the job (its work directory); polls until none, for at
 * most the hang guard (it used to be 100 polls, 5 s, which a busy machine can spend reaping a killed tool).
 */
async function processesMentioning(jobId: string): Promise<number[]> {
  const live = async () => {
    const found: number[] = [];
    for (const entry of await readdir('/proc')) {
      if (!/^\d+$/.test(entry)) continue;
      const cmdline = await readFile(`/proc/${entry}/cmdline`, 'utf8').catch(() => '');
      const stat = await readFile(`/proc/${entry}/stat`, 'utf8').catch(() => '');
      const zombie = stat.slice(stat.lastIndexOf(')') + 2)[0] === 'Z';
      if (cmdline.includes(jobId) && !zombie) found.push(Number(entry));
    }
    return found;
  };
  return settled(live, (found) => found.length === 0);
}

describe('a job over its time budget', () => {
  let presso: TestPresso;
  before(async () => {
    presso = await startTestPresso({ PRESSO_IMAGE_TIME_BUDGET: '3s', PRESSO_WORKERS: '2' });
  });
  after(async () => {
    await presso.stop();
  });

  test('fails after one attempt with the time-budget message while the service keeps answering', async () => {
    const response = await presso.upload(
      slowSvg(),
      { async: true, image: { format: 'png' } },
      undefined,
      'slow.svg',
    );
    assert.equal(response.status, 202);
    const { id } = (await response.json()) as { id: string };
    // While the SVG is drawn: health checks answer and a small job of the same account completes.
    let healthy = 0;
    for (let i = 0; i < 5; i++) {
      if ((await presso.request('/healthz', { auth: false })).status === 200) healthy++;
    }
    assert.equal(healthy, 5);
    // Another kind (an archive: its own time budget), so the 3 s image budget set for the SVG cannot stop it
    // on a busy machine: the small image job used here before failed that way under the full suite.
    const small = await presso.upload(tinyTar(), {}, undefined, 'notes.tar');
    assert.equal(small.status, 200);
    const failed = await presso.waitForJob(id);
    assert.equal(failed.status, 'failed');
    assert.equal(failed.message, 'Processing the image took longer than the time budget of 3 s.');
    // The queue lets go of a job just after its record is final (the small job's row could still be there when
    // this one failed, under the full suite): wait for it to drain, then check nothing ran the job again.
    await until(async () => (await presso.services.queue.size()) === 0, 'the queue drained');
    const record = await presso.services.jobStore.get(id);
    assert.equal(record?.status, 'failed');
    assert.equal(record?.attempts, 1, 'not retried');
    assert.deepEqual(await processesMentioning(id), [], 'the drawing process was killed');
  });
});
