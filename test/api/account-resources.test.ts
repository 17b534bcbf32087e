/**
 * End to end over HTTPS on the real server and image processor, one test per dashboard flow of the account
 * resources: a key's life (create, use, list, revoke), finding a job and its steps, watching a job live (SSE),
 * and the usage and deliveries that follow. The route details are in test/http (keys, job-list, job-events).
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { corpus } from '../support/corpus.ts';
import { PASSWORD, signIn } from '../support/dashboard.ts';
import { bearer, startTestPresso, type TestPresso } from '../support/presso.ts';
import type { Receiver } from '../support/receiver.ts';
import { startScriptedReceiver } from '../support/webhook-flow.ts';

describe('account resources (end to end)', () => {
  let presso: TestPresso;
  let receiver: Receiver;
  before(async () => {
    receiver = await startScriptedReceiver(new Map());
    presso = await startTestPresso({ PRESSO_OUTBOUND_ALLOW: '127.0.0.1/32' });
  });
  after(async () => {
    await presso?.stop();
    await receiver?.close();
  });

  test('an owner creates a key, its secret shown once; it works, is listed as used, revokes itself and is refused', async () => {
    await presso.services.users.createUser(presso.account.id, 'owner@example.com', 'owner', PASSWORD);
    const owner = await signIn(presso, 'owner@example.com');
    const response = await owner.request('/1.0/keys', {
      method: 'POST',
      body: JSON.stringify({ name: 'laptop' }),
    });
    assert.equal(response.status, 201);
    const created = (await response.json()) as { id: string; key: string; scopes: string[] };
    assert.deepEqual(created.scopes, ['jobs']);
    const auth = bearer(created.key);
    const upload = await presso.upload(corpus.chelsea, undefined, auth);
    assert.equal(upload.status, 200);
    const keys = (await (await presso.request('/1.0/keys')).json()) as {
      keys: { id: string; name: string; lastUsedAt: string | null }[];
    };
    const listed = keys.keys.find((k) => k.id === created.id);
    assert.equal(listed?.name, 'laptop');
    assert.ok(listed?.lastUsedAt);
    assert.doesNotMatch(JSON.stringify(keys), new RegExp(created.key.slice(10)), 'no secret after creation');
    assert.equal((await presso.request(`/1.0/keys/${created.id}`, { method: 'DELETE', auth })).status, 204);
    assert.equal((await presso.request('/1.0/account', { auth })).status, 401);
  });

  test('a job is found in the list by part of its name, and its page shows timings and steps', async () => {
    const upload = await presso.upload(
      corpus.chelsea,
      { image: { format: 'webp' } },
      undefined,
      'garden_cat.png',
    );
    assert.equal(upload.status, 200);
    const { id } = (await upload.json()) as { id: string };
    const list = (await (await presso.request('/1.0/jobs?q=den_c&status=completed&kind=image')).json()) as {
      jobs: { id: string; output?: { format: string } }[];
    };
    assert.deepEqual(
      list.jobs.map((j) => [j.id, j.output?.format]),
      [[id, 'webp']],
    );
    const detail = (await (await presso.request(`/1.0/jobs/${id}?detail=true`)).json()) as {
      startedAt: string;
      steps: { name: string; outcome: string }[];
    };
    assert.ok(detail.startedAt);
    assert.ok(detail.steps.some((s) => s.name === 'process' && s.outcome === 'completed'));
  });

  test("a job's live events arrive over HTTPS until it completes", async () => {
    const upload = await presso.upload(corpus.astronaut, {
      async: true,
      image: { resize: { width: 200 } },
      webhook: { url: `${receiver.origin}/done` },
    });
    assert.equal(upload.status, 202);
    const { id } = (await upload.json()) as { id: string };
    const stream = await presso.request(`/1.0/jobs/${id}/events`);
    assert.equal(stream.status, 200);
    assert.match(stream.headers.get('content-type') ?? '', /^text\/event-stream/);
    // The server ends the stream once the job has ended: reading to the end is waiting for it.
    const frames = (await stream.text()).split('\n\n').filter((frame) => frame.startsWith('event: status'));
    const last = JSON.parse(frames.at(-1)!.split('\ndata: ')[1]!) as {
      id: string;
      status: string;
      url: string;
    };
    assert.deepEqual([last.id, last.status], [id, 'completed']);
    assert.equal((await presso.get(last.url)).status, 200);
    assert.equal(presso.services.events.openWatches(), 0);

    await receiver.waitFor(1);
    const deliveries = (await (await presso.request('/1.0/webhooks')).json()) as {
      deliveries: { jobId: string }[];
    };
    assert.deepEqual(
      deliveries.deliveries.map((d) => d.jobId),
      [id],
    );
    const usage = (await (await presso.request('/1.0/usage?days=1')).json()) as {
      days: { kind: string; jobs: number; requests: number }[];
    };
    assert.equal(usage.days.find((d) => d.kind === 'image')?.jobs, 3, 'the three jobs of this file');
    assert.ok((usage.days.find((d) => d.kind === 'http')?.requests ?? 0) > 0);
  });
});
