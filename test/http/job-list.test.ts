/**
 * The dashboard's read routes through app.inject(): GET /1.0/jobs (filters, cursors, only the caller's jobs),
 * GET /1.0/jobs/{id}?detail=true (timings and steps), GET /1.0/usage (daily counters per kind) and
 * GET /1.0/webhooks without `job` (deliveries across jobs, newest first, paged).
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { assertErrorBody } from '../api/helpers.ts';
import { corpus } from '../support/corpus.ts';
import { buildTestApp, type TestApp } from '../support/http-app.ts';
import { bearer } from '../support/presso.ts';
import type { Receiver } from '../support/receiver.ts';
import { startScriptedReceiver } from '../support/webhook-flow.ts';

interface Summary {
  id: string;
  status: string;
  kind?: string;
  source: string;
  createdAt: string;
  input?: { name: string; size: number };
  output?: { name: string; size: number; format: string };
  message?: string;
}

describe('job list, job detail, usage and deliveries across jobs', () => {
  let presso: TestApp;
  let receiver: Receiver;
  /** Jobs made by `before`, oldest first. */
  const made: { id: string; name: string }[] = [];

  const json = async <T>(path: string, auth?: string) => {
    const response = await presso.request(path, auth === undefined ? {} : { auth });
    assert.equal(response.status, 200, `${path}: ${response.status}`);
    return (await response.json()) as T;
  };
  const list = (query: string, auth?: string) =>
    json<{ jobs: Summary[]; nextCursor?: string }>(`/1.0/jobs${query}`, auth);

  before(async () => {
    receiver = await startScriptedReceiver(new Map());
    presso = await buildTestApp({ env: { PRESSO_OUTBOUND_ALLOW: '127.0.0.1/32' } });
    const uploads: [string | Buffer, string][] = [
      [corpus.chelsea, 'cat_1.png'],
      [corpus.chelsea, 'cat-2.png'],
      [Buffer.from('not an image at all'), 'notes.txt'],
      [corpus.chelsea, 'cat_3.png'],
    ];
    for (const [file, name] of uploads) {
      const response = await presso.upload(
        file,
        { webhook: { url: `${receiver.origin}/hook` } },
        undefined,
        name,
      );
      assert.equal(response.status, 202);
      const { id } = (await response.json()) as { id: string };
      await presso.waitForJob(id);
      made.push({ id, name });
    }
    await receiver.waitFor(uploads.length);
  });
  after(async () => {
    await presso?.close();
    await receiver?.close();
  });

  test("lists the account's jobs newest first, with what each job page needs", async () => {
    const { jobs, nextCursor } = await list('');
    assert.deepEqual(
      jobs.map((j) => j.input?.name),
      ['cat_3.png', 'notes.txt', 'cat-2.png', 'cat_1.png'],
    );
    assert.equal(nextCursor, undefined);
    const [completed, failed] = jobs;
    assert.equal(completed?.status, 'completed');
    assert.equal(completed?.kind, 'image');
    assert.equal(completed?.source, 'upload');
    assert.equal(completed?.output?.format, 'png');
    assert.equal(failed?.status, 'failed');
    assert.match(failed?.message ?? '', /type/);
    const other = await presso.createAccount('other');
    assert.deepEqual((await list('', bearer(other.key))).jobs, []);
  });

  test('filters by status, kind, size, time and a plain substring', async () => {
    assert.deepEqual(
      (await list('?status=failed')).jobs.map((j) => j.input?.name),
      ['notes.txt'],
    );
    assert.equal((await list('?kind=image')).jobs.length, 3);
    assert.equal((await list('?minSize=1000')).jobs.length, 3);
    assert.deepEqual(
      (await list('?maxSize=100')).jobs.map((j) => j.input?.name),
      ['notes.txt'],
    );
    // A wildcard in `q` is a plain character: `%` matches no name here, `_` only the names that have one.
    assert.deepEqual((await list(`?q=${encodeURIComponent('%')}`)).jobs, []);
    assert.deepEqual(
      (await list('?q=_')).jobs.map((j) => j.input?.name),
      ['cat_3.png', 'cat_1.png'],
    );
    assert.deepEqual(
      (await list(`?q=${made[1]!.id.slice(0, 13).toUpperCase()}`)).jobs.map((j) => j.id),
      [made[1]!.id],
    );
    const tomorrow = new Date(Date.now() + 86_400_000).toISOString().slice(0, 10);
    assert.equal((await list(`?since=${tomorrow}`)).jobs.length, 0);
    assert.equal((await list(`?until=${tomorrow}`)).jobs.length, 4);
  });

  test('pages with an opaque cursor until the last page', async () => {
    const seen: string[] = [];
    let query = '?limit=3';
    for (;;) {
      const page = await list(query);
      seen.push(...page.jobs.map((j) => j.id));
      if (page.nextCursor === undefined) break;
      query = `?limit=3&cursor=${page.nextCursor}`;
    }
    assert.deepEqual(seen, made.map((j) => j.id).reverse());
  });

  test('bad filters are 422 naming the parameter', async () => {
    for (const [query, field] of [
      ['?limit=0', 'limit'],
      ['?limit=101', 'limit'],
      ['?minSize=-1', 'minSize'],
      ['?since=yesterday', 'since'],
      ['?cursor=bm90LWEtY3Vyc29y', 'cursor'],
    ] as const) {
      const body = await assertErrorBody(await presso.request(`/1.0/jobs${query}`), 422);
      assert.deepEqual(
        (body.errors as { field: string }[]).map((e) => e.field),
        [field],
        query,
      );
    }
    await assertErrorBody(await presso.request('/1.0/jobs?status=done'), 422);
  });

  test('GET /1.0/jobs/{id}?detail=true adds the timings and the steps of the run', async () => {
    const plain = await json<Record<string, unknown>>(`/1.0/jobs/${made[0]!.id}`);
    assert.equal(plain.steps, undefined, 'the record keeps its decided shape');
    const detail = await json<{
      status: string;
      queuedAt: string;
      startedAt: string;
      finishedAt: string;
      steps: { name: string; startedAt: string; finishedAt: string; outcome: string }[];
    }>(`/1.0/jobs/${made[0]!.id}?detail=true`);
    assert.equal(detail.status, 'completed');
    assert.deepEqual(
      detail.steps.map((s) => [s.name, s.outcome]),
      [
        ['acquire-input', 'completed'],
        ['detect-kind', 'completed'],
        ['choose-processor', 'completed'],
        ['process', 'completed'],
        ['keep-smaller', 'completed'],
        ['describe-output', 'completed'],
        ['store-output', 'completed'],
      ],
    );
    const times = [detail.queuedAt, detail.startedAt, detail.steps[0]!.startedAt, detail.finishedAt].map(
      Date.parse,
    );
    assert.deepEqual(
      times,
      [...times].sort((a, b) => a - b),
      'queued, started, stepped, finished in order',
    );
    const failed = await json<{ steps: { name: string; outcome: string }[] }>(
      `/1.0/jobs/${made[2]!.id}?detail=true`,
    );
    assert.deepEqual(
      failed.steps.map((s) => [s.name, s.outcome]),
      [
        ['acquire-input', 'completed'],
        ['detect-kind', 'failed'],
      ],
    );
  });

  test("GET /1.0/usage counts today's jobs per kind, failures and requests", async () => {
    const { days } = await json<{ days: Record<string, unknown>[] }>('/1.0/usage?days=7');
    const today = new Date().toISOString().slice(0, 10);
    const image = days.find((d) => d.date === today && d.kind === 'image');
    assert.equal(image?.jobs, 3);
    assert.equal(image?.failures, 0);
    assert.ok((image?.bytesIn as number) > 0);
    assert.equal(image?.bytesOut, image?.bytesIn, 'the copying processor gives the input back');
    const unknown = days.find((d) => d.date === today && d.kind === 'unknown');
    assert.deepEqual([unknown?.jobs, unknown?.failures], [1, 1]);
    const http = days.find((d) => d.date === today && d.kind === 'http');
    assert.ok((http?.requests as number) >= 8, 'the uploads and the polls before');
    await assertErrorBody(await presso.request('/1.0/usage?days=0'), 422);
    await assertErrorBody(await presso.request('/1.0/usage?days=400'), 422);
  });

  test('GET /1.0/webhooks without a job lists the deliveries across jobs, newest first, in pages', async () => {
    const first = await json<{ deliveries: { jobId: string; attempts: unknown[] }[]; nextCursor?: string }>(
      '/1.0/webhooks?limit=3',
    );
    assert.equal(first.deliveries.length, 3);
    assert.ok(first.nextCursor);
    const second = await json<{ deliveries: { jobId: string }[]; nextCursor?: string }>(
      `/1.0/webhooks?limit=3&cursor=${first.nextCursor}`,
    );
    assert.equal(second.nextCursor, undefined);
    assert.deepEqual(
      [...first.deliveries, ...second.deliveries].map((d) => d.jobId),
      made.map((j) => j.id).reverse(),
    );
    const other = await presso.createAccount('other-hooks');
    assert.deepEqual(
      (await json<{ deliveries: unknown[] }>('/1.0/webhooks', bearer(other.key))).deliveries,
      [],
    );
  });
});
