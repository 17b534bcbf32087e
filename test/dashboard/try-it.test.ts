/**
 * Try it, the jobs list and the operator's fleet in headless Chromium against the real service over HTTPS: an
 * image, a PDF and a short video dropped together, each followed live over server-sent events (no polling:
 * one events stream and one final read per job) to its savings, which match the job's sizes; the image's
 * before/after slider, the video's two players; "Download all" as a ZIP holding each output byte for byte; the
 * jobs list filtered by status and kind; the operator's page listing a running job under the worker running it;
 * and every page, with data, at both widths, with axe-core and no CSP violation.
 */
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import type { Browser } from 'playwright-core';
import sharp from 'sharp';
import { formatBytes, formatSaving } from '../../dashboard/src/format.ts';
import { corpus } from '../support/corpus.ts';
import { makeClip } from '../support/media.ts';
import { startTestPresso, type TestPresso } from '../support/presso.ts';
import { startReceiver } from '../support/receiver.ts';
import { until } from '../support/until.ts';
import { ARTIFACTS, checkPage, type DashboardPage, launchBrowser } from './browser.ts';
import { ensureDashboardBuilt } from './build.ts';
import { makeUser, openPage, signInView, switchUser } from './signed-in-view.ts';

let presso: TestPresso;
let browser: Browser;
let owner: DashboardPage;
const scratch = mkdtempSync(join(tmpdir(), 'presso-try-it-'));
const clip = join(scratch, 'clip.mp4');
/**
 * The Debian logo with its alpha at 200x150, a sixteenth of its 800x600 pixels: the page's image states and
 * slider are the same, and the service's quality search at the default level costs a fraction of the full
 * size's ~0.5 CPU-s (the file: 16.0 -> 14.1 CPU-s).
 */
const logo = join(scratch, 'debian.png');

interface JobBody {
  id: string;
  status: string;
  url: string;
  input: { name: string; size: number; type: string };
  output: { name: string; size: number };
}

before(async () => {
  ensureDashboardBuilt();
  makeClip(clip, { width: 192, height: 144, seconds: 3 });
  await sharp(corpus.alphaPng).resize(200).png().toFile(logo);
  presso = await startTestPresso({ PRESSO_OUTBOUND_ALLOW: '127.0.0.1/32' });
  browser = await launchBrowser();
  owner = await signInView(
    browser,
    presso,
    await makeUser(presso, presso.account.id, 'owner@t.test', 'owner'),
  );
});
after(async () => {
  await browser?.close();
  await presso?.stop();
  rmSync(scratch, { recursive: true, force: true });
});

const jobOf = async (id: string) => (await (await presso.request(`/1.0/jobs/${id}`)).json()) as JobBody;

test("the operator's page lists a running job under the worker running it, then its throughput", async () => {
  // A fetch from a source that sends half the file and waits: the job stays running while the page looks.
  // A real PNG over the 1,000 bytes sent first, cheap to search once released (~0.1 CPU-s).
  const bytes = readFileSync(corpus.palettePng);
  let release = () => {};
  const released = new Promise<void>((resolve) => {
    release = resolve;
  });
  const source = await startReceiver(async (_req, res) => {
    res.writeHead(200, { 'content-type': 'image/png', 'content-length': bytes.length });
    res.write(bytes.subarray(0, 1000));
    await released;
    res.end(bytes.subarray(1000));
  });
  // The owner's browser signed in as the operator for this test (a context of its own costs ~1 CPU-s).
  const operator = await switchUser(
    owner,
    await makeUser(presso, presso.account.id, 'operator@t.test', 'operator'),
  );
  try {
    const response = await presso.fetchJson({ url: `${source.origin}/slow.png`, async: true });
    const { id } = (await response.json()) as { id: string };
    await openPage(operator, 'operator', 'Operator');
    const workers = operator.page.getByRole('region', { name: 'Workers and their jobs' });
    // The test refreshes the overview, as an operator would, until the job has been claimed.
    const group = workers.getByRole('listitem').filter({ hasText: id.slice(0, 8) });
    await until(async () => {
      if ((await group.count()) === 1) return true;
      await operator.page.getByRole('button', { name: 'Refresh the fleet' }).click();
      await operator.page.waitForLoadState('networkidle');
      return false;
    }, 'the running job on the operator page');
    const worker = ((await group.getByRole('heading').textContent()) ?? '').trim();
    assert.match(worker, new RegExp(`^[^:]+:${process.pid}:\\d+$`), 'host:pid:slot of this process');
    assert.match((await group.textContent()) ?? '', /api-test/, "the job's account by name");
    await checkPage(operator, 'operator-running');
    release();
    assert.equal((await presso.waitForJob(id)).status, 'completed');
    await operator.page.getByRole('button', { name: 'Refresh the fleet' }).click();
    const throughput = operator.page.getByRole('region', { name: /Throughput and failures/ });
    await throughput.getByRole('row', { name: /image\s+1\s+0/ }).waitFor();
    await workers.getByText('No job is running.').waitFor();
  } finally {
    release();
    await source.close();
    await switchUser(owner, 'owner@t.test');
  }
});

test('Try it: an image, a PDF and a video followed live to their savings, compared, and zipped', async () => {
  const { page } = owner;
  const requests: string[] = [];
  page.on('request', (r) => requests.push(`${r.method()} ${new URL(r.url()).pathname}`));
  await openPage(owner, 'try', 'Try it');
  // Every state each result shows, as the page renders it: what the events stream pushed.
  await page.evaluate(() => {
    const g = globalThis as unknown as {
      __states: string[];
      document: {
        querySelector(s: string): unknown;
        querySelectorAll(s: string): Iterable<{ textContent: string }>;
      };
      MutationObserver: new (cb: () => void) => { observe(node: unknown, o: object): void };
    };
    g.__states = [];
    new g.MutationObserver(() => {
      for (const item of g.document.querySelectorAll('.results .result')) g.__states.push(item.textContent);
    }).observe(g.document.querySelector('.results'), { subtree: true, childList: true, characterData: true });
  });
  await page.locator('#try-files').setInputFiles([logo, corpus.pdf, clip]);
  const names = ['debian.png', 'a-text.pdf', 'clip.mp4'];
  const jobs = new Map<string, JobBody>();
  for (const name of names) {
    const result = page.getByRole('listitem').filter({ hasText: name });
    await result.locator('.badge-completed, .badge-failed').waitFor({ timeout: 0 });
    const href = (await result.getByRole('link', { name: /^job / }).getAttribute('href')) ?? '';
    const job = await jobOf(href.split('/').pop() ?? '');
    assert.equal(job.status, 'completed', `${name}: ${JSON.stringify(job)}`);
    jobs.set(name, job);
    const sizes = result.locator('dl.sizes');
    assert.equal(await sizes.locator('dd').nth(0).textContent(), formatBytes(job.input.size));
    assert.equal(await sizes.locator('dd').nth(1).textContent(), formatBytes(job.output.size));
    assert.equal(
      await sizes.locator('dd.saving').textContent(),
      formatSaving(job.input.size, job.output.size),
    );
    assert.ok(job.output.size < job.input.size, `${name} got smaller`);
  }
  // Live, not polled: per job one events stream and one read of the finished record, no other status request.
  for (const job of jobs.values()) {
    assert.equal(requests.filter((r) => r === `GET /1.0/jobs/${job.id}`).length, 1, `reads of ${job.id}`);
    assert.ok(requests.includes(`GET /1.0/jobs/${job.id}/events`));
  }
  const states = await page.evaluate(() => (globalThis as unknown as { __states: string[] }).__states);
  const videoStates = states.filter((s) => s.startsWith('clip.mp4'));
  const seen = (pattern: RegExp) => videoStates.findIndex((s) => pattern.test(s));
  const processing = seen(/^clip\.mp4 processing/);
  assert.ok(processing >= 0, `the video's processing state was pushed: ${videoStates.join(' | ')}`);
  assert.ok(seen(/Processing \d+ %/) > processing, 'then its progress');
  assert.ok(seen(/^clip\.mp4 completed/) > processing);

  const image = page.getByRole('listitem').filter({ hasText: 'debian.png' });
  await image.getByLabel('Before / after').fill('30');
  assert.equal(
    await image
      .getByRole('img', { name: 'debian.png after' })
      .evaluate((i) => (i as unknown as { naturalWidth: number }).naturalWidth > 0),
    true,
  );
  await image.getByLabel('Zoom', { exact: true }).selectOption('2');
  const video = page.getByRole('listitem').filter({ hasText: 'clip.mp4' });
  assert.equal(await video.locator('video').count(), 2);
  assert.equal(
    await page.getByRole('listitem').filter({ hasText: 'a-text.pdf' }).locator('img, video').count(),
    0,
  );
  await checkPage(owner, 'try-results');

  const [download] = await Promise.all([
    page.waitForEvent('download'),
    page.getByRole('button', { name: 'Download all (3) as ZIP' }).click(),
  ]);
  const zip = join(scratch, 'outputs.zip');
  await download.saveAs(zip);
  const listed = execFileSync('zipinfo', ['-1', zip], { encoding: 'utf8' }).trim().split('\n').sort();
  assert.deepEqual(listed, [...jobs.values()].map((j) => j.output.name).sort());
  for (const job of jobs.values()) {
    const inZip = execFileSync('unzip', ['-p', zip, job.output.name]);
    const served = Buffer.from(await (await presso.get(job.url)).arrayBuffer());
    assert.ok(inZip.equals(served), `${job.output.name} in the ZIP is the output`);
  }
});

test('the jobs list filters by status and kind; every page with data passes at both widths', async () => {
  const broken = Buffer.concat([Buffer.from('89504e470d0a1a0a', 'hex'), Buffer.alloc(64, 7)]);
  const failed = (await (await presso.upload(broken, undefined, undefined, 'broken.png')).json()) as {
    id: string;
  };
  assert.equal((await presso.waitForJob(failed.id)).status, 'failed');
  const { page } = owner;
  await openPage(owner, 'jobs', 'Jobs');
  const rows = page.getByRole('table', { name: /^Jobs, page 1/ }).locator('tbody tr');
  // The rows arrive after the page's heading: wait for the five jobs of this file's runs to be listed.
  await until(async () => (await rows.count()) >= 5, 'the five jobs listed');
  await checkPage(owner, 'jobs');
  // `expected` matches every row of the filtered answer: the table still showing the previous filter's rows
  // (also fewer than five) is not the answer.
  const filtered = async (status: string, kind: string, expected: RegExp) => {
    await page.getByLabel('Status').selectOption(status);
    await page.getByLabel('Kind').selectOption(kind);
    await Promise.all([
      page.waitForResponse((r) => new URL(r.url()).pathname === '/1.0/jobs'),
      page.getByRole('button', { name: 'Apply filters' }).click(),
    ]);
    // The answer is in; the table shows it once rendered (a page without the filter would keep all five rows).
    return until(
      async () => {
        const texts = (await rows.allTextContents()).map((row) => row.replace(/\s+/g, ' '));
        return texts.length > 0 && texts.length < 5 && texts.every((row) => expected.test(row))
          ? texts
          : undefined;
      },
      `the jobs filtered by ${status || 'any status'} and ${kind || 'any kind'}`,
    );
  };
  const failedRows = await filtered('failed', '', /failed/);
  assert.equal(failedRows.length, 1, failedRows.join('\n'));
  assert.match(failedRows[0] ?? '', /broken\.png.*failed/);
  const pdfRows = await filtered('', 'pdf', /\.pdf/);
  assert.equal(pdfRows.length, 1, pdfRows.join('\n'));
  assert.match(pdfRows[0] ?? '', /a-text\.pdf.*completed/);
  await checkPage(owner, 'jobs-filtered');
  await rows.first().getByRole('link').click();
  await page.getByRole('heading', { level: 2, name: 'Steps' }).waitFor();
  await page.waitForLoadState('networkidle');
  await checkPage(owner, 'job');
  for (const [hash, title] of [
    ['overview', 'Overview'],
    ['keys', 'API keys'],
    ['connectors', 'Connectors'],
    ['webhooks', 'Webhooks'],
    ['users', 'Users'],
  ] as const) {
    await openPage(owner, hash, title);
    await checkPage(owner, `${hash}-with-data`);
  }
  assert.ok(ARTIFACTS.length > 0);
});

test('no page of the run reported a CSP violation', () => {
  assert.deepEqual(presso.presso.app.cspReports.recent, []);
});
