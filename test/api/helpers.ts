/** Shared assertions of the API tests. */
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import type { Response } from 'undici';
import type { CompletedRecord, SyncResult } from '../../src/jobs/job-record.ts';

export const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

/** The documented error body, with X-Request-Id equal to its id and the rate-limit headers. */
export async function assertErrorBody(response: Response, status: number): Promise<Record<string, unknown>> {
  assert.equal(response.status, status);
  assert.match(response.headers.get('content-type') ?? '', /^application\/json/);
  const body = (await response.json()) as Record<string, unknown>;
  assert.equal(body.success, false);
  assert.equal(body.status, status);
  assert.match(String(body.id), UUID);
  assert.equal(typeof body.message, 'string');
  assert.ok((body.message as string).length > 0);
  assert.equal(response.headers.get('x-request-id'), body.id);
  assert.ok(response.headers.get('x-ratelimit-limit'));
  assert.ok(response.headers.get('x-ratelimit-remaining'));
  assert.ok(response.headers.get('x-ratelimit-reset'));
  return body;
}

/** A completed job as the API shows it: a synchronous result, or a job record with its status. */
export type CompletedResult = SyncResult & { status?: CompletedRecord['status'] };

/** The bytes behind a result's download URL, checked against its descriptor (size and SHA-1). */
export async function download(
  client: { get(url: string, headers?: Record<string, string>): Promise<Response> },
  result: CompletedResult,
): Promise<Buffer> {
  const response = await client.get(result.url);
  assert.equal(response.status, 200, `GET ${result.url}`);
  const bytes = Buffer.from(await response.arrayBuffer());
  assert.equal(bytes.length, result.output.size);
  assert.equal(createHash('sha1').update(bytes).digest('hex'), result.output.sha1);
  return bytes;
}
