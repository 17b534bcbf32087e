/**
 * GET /1.0/jobs/{id}/events on the real app: a finished job's stream through app.inject(), and a running
 * job's live stream over a socket (the app listening on loopback, behind the trusted-proxy header), so the
 * events arrive as they happen and a client can go away mid-stream. The processor is a fake that reports
 * progress and waits for the test to let it finish.
 */
import assert from 'node:assert/strict';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, describe, test } from 'node:test';
import { sseFrame } from '../../src/http/routes/job-events.ts';
import { assertErrorBody } from '../api/helpers.ts';
import { corpus } from '../support/corpus.ts';
import { PASSWORD, signIn } from '../support/dashboard.ts';
import { buildTestApp, copyInput, type TestApp } from '../support/http-app.ts';
import { bearer } from '../support/presso.ts';
import { until } from '../support/until.ts';

interface SseEvent {
  event: string;
  data: Record<string, unknown>;
}

/** Parses `event:`/`data:` frames; comment lines (heartbeats) are skipped. */
function parseEvents(text: string): SseEvent[] {
  return text
    .split('\n\n')
    .filter((frame) => frame.startsWith('event:'))
    .map((frame) => {
      const [eventLine, dataLine] = frame.split('\n');
      return {
        event: eventLine!.slice('event: '.length),
        data: JSON.parse(dataLine!.slice('data: '.length)),
      };
    });
}

describe('live job events (SSE)', () => {
  let presso: TestApp;
  let origin: string;
  /** Lets a held job's processor finish. */
  const release = new Map<string, () => void>();
  const held = new Set<string>();

  before(async () => {
    presso = await buildTestApp({
      // No heartbeat within any test: a stream's watch is released by its client leaving, never by a tick.
      env: { PRESSO_EVENTS_HEARTBEAT: '1h' },
      async process(request) {
        if (request.input.name.startsWith('held')) {
          held.add(request.input.name);
          request.onProgress?.(25);
          await new Promise<void>((resolve) => release.set(request.input.name, resolve));
          request.onProgress?.(80);
        }
        return copyInput(request);
      },
    });
    await presso.app.listen({ port: 0, host: '127.0.0.1' });
    origin = `http://127.0.0.1:${(presso.app.server.address() as AddressInfo).port}`;
  });
  after(async () => {
    for (const resolve of release.values()) resolve();
    await presso?.close();
  });

  /** Opens the stream over a socket; `chunks` fills as frames arrive. */
  function openStream(jobId: string, key = presso.key) {
    let text = '';
    let ended = false;
    const request = http.get(`${origin}/1.0/jobs/${jobId}/events`, {
      headers: { authorization: bearer(key), 'x-forwarded-proto': 'https' },
    });
    const response = new Promise<http.IncomingMessage>((resolve, reject) => {
      request.on('response', (res) => {
        res.setEncoding('utf8');
        res.on('data', (chunk: string) => {
          text += chunk;
        });
        res.on('end', () => {
          ended = true;
        });
        resolve(res);
      });
      request.on('error', reject);
    });
    return {
      response,
      events: () => parseEvents(text),
      ended: () => ended,
      waitFor: (what: string, test: (events: SseEvent[]) => boolean) =>
        until(async () => (test(parseEvents(text)) ? true : undefined), what, 10),
      destroy: () => request.destroy(),
    };
  }

  const submitHeld = async (name: string) => {
    const response = await presso.upload(corpus.chelsea, { async: true }, undefined, name);
    assert.equal(response.status, 202);
    const { id } = (await response.json()) as { id: string };
    await until(async () => (held.has(name) ? true : undefined), `${name} to start`, 10);
    return id;
  };

  test("a finished job's stream gives its final record and ends", async () => {
    const upload = await presso.upload(corpus.chelsea);
    const { id } = (await upload.json()) as { id: string };
    const response = await presso.request(`/1.0/jobs/${id}/events`);
    assert.equal(response.status, 200);
    assert.match(response.headers.get('content-type') ?? '', /^text\/event-stream/);
    assert.equal(response.headers.get('cache-control'), 'no-cache, no-transform');
    const events = parseEvents(await response.text());
    assert.deepEqual(
      events.map((e) => [e.event, e.data.status]),
      [['status', 'completed']],
    );
    assert.equal(events[0]!.data.id, id);
    assert.equal(typeof events[0]!.data.url, 'string');
    // The dashboard's EventSource sends the session cookie, no key.
    await presso.services.users.createUser(presso.account.id, 'viewer@example.com', 'member', PASSWORD);
    const viewer = await signIn(presso, 'viewer@example.com');
    const bySession = await viewer.request(`/1.0/jobs/${id}/events`);
    assert.equal(bySession.status, 200);
    assert.deepEqual(
      parseEvents(await bySession.text()).map((e) => e.data.status),
      ['completed'],
    );
  });

  test('a running job streams its status and progress as they change, and the stream ends with it', async () => {
    const id = await submitHeld('held-1.png');
    const stream = openStream(id);
    assert.equal((await stream.response).statusCode, 200);
    await stream.waitFor('the processing status and first progress', (events) =>
      events.some((e) => e.event === 'progress' && e.data.progress === 25),
    );
    release.get('held-1.png')!();
    await until(async () => (stream.ended() ? true : undefined), 'the stream to end', 10);
    const events = stream.events();
    assert.deepEqual(events[0], { event: 'status', data: { id, status: 'processing', progress: 25 } });
    const last = events.at(-1)!;
    assert.deepEqual([last.event, last.data.status], ['status', 'completed']);
    assert.ok(
      events.some((e) => e.event === 'progress' && e.data.progress === 80) ||
        events.filter((e) => e.event === 'status').length === 2,
      'progress 80 was sent unless completion overtook it',
    );
    assert.equal(presso.services.events.openWatches(), 0);
  });

  test('a client that disconnects leaves no watch behind', async () => {
    const id = await submitHeld('held-2.png');
    const streams = [openStream(id), openStream(id)];
    for (const stream of streams) await stream.waitFor('the first event', (events) => events.length > 0);
    assert.equal(presso.services.events.openWatches(), 2);
    streams[0]!.destroy();
    await until(
      async () => (presso.services.events.openWatches() === 1 ? true : undefined),
      'one watch released',
      10,
    );
    streams[1]!.destroy();
    await until(
      async () => (presso.services.events.openWatches() === 0 ? true : undefined),
      'every watch released',
      10,
    );
    release.get('held-2.png')!();
    await presso.waitForJob(id);
  });

  test('a quiet tick is a heartbeat comment, which EventSource ignores', () => {
    assert.equal(sseFrame({ type: 'quiet' }), ': heartbeat\n\n');
  });

  test("another account's job, or no job, is 404; no key is 401", async () => {
    const upload = await presso.upload(corpus.chelsea);
    const { id } = (await upload.json()) as { id: string };
    const other = await presso.createAccount('other');
    await assertErrorBody(await presso.request(`/1.0/jobs/${id}/events`, { auth: bearer(other.key) }), 404);
    await assertErrorBody(await presso.request('/1.0/jobs/00000000-0000-4000-8000-000000000000/events'), 404);
    await assertErrorBody(await presso.request('/1.0/jobs/not-a-uuid/events'), 404);
    await assertErrorBody(await presso.request(`/1.0/jobs/${id}/events`, { auth: false }), 401);
    assert.equal(presso.services.events.openWatches(), 0);
  });
});
