/** GET /1.0/account, the OpenAPI document and the health check. */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { corpus } from '../support/corpus.ts';
import { buildTestApp, type TestApp } from '../support/http-app.ts';

describe('account, OpenAPI, health', () => {
  let presso: TestApp;
  before(async () => {
    presso = await buildTestApp();
  });
  after(() => presso?.close());

  test('GET /1.0/account returns id, name, rate limit and usage', async () => {
    const upload = await presso.upload(corpus.chelsea);
    assert.equal(upload.status, 200);
    const result = (await upload.json()) as { input: { size: number }; output: { size: number } };

    const response = await presso.request('/1.0/account');
    assert.equal(response.status, 200);
    const body = (await response.json()) as {
      id: string;
      name: string;
      createdAt: string;
      rateLimit: { limit: number; remaining: number; reset: number; windowSeconds: number };
      usage: { requests: number; jobs: number; bytesIn: number; bytesOut: number };
    };
    assert.equal(body.id, presso.account.id);
    assert.equal(body.name, 'http-test');
    assert.ok(!Number.isNaN(Date.parse(body.createdAt)));
    assert.equal(body.rateLimit.limit, 100_000);
    assert.equal(body.rateLimit.remaining, Number(response.headers.get('x-ratelimit-remaining')));
    assert.equal(body.rateLimit.windowSeconds, 900);
    assert.equal(body.usage.jobs, 1);
    assert.equal(body.usage.bytesIn, result.input.size);
    assert.equal(body.usage.bytesOut, result.output.size);
    assert.ok(body.usage.requests >= 1);
    assert.doesNotMatch(JSON.stringify(body), /whsec_|psk_/, 'no secret in the account record');
  });

  test('GET /1.0/openapi.json is an OpenAPI 3.1 document of the API', async () => {
    const response = await presso.request('/1.0/openapi.json', { auth: false });
    assert.equal(response.status, 200);
    const doc = (await response.json()) as {
      openapi: string;
      info: { title: string; version: string };
      paths: Record<string, Record<string, unknown>>;
    };
    assert.match(doc.openapi, /^3\.1\./);
    assert.equal(doc.info.version, '1.0');
    for (const [path, method] of [
      ['/1.0/upload', 'post'],
      ['/1.0/fetch', 'post'],
      ['/1.0/jobs/{id}', 'get'],
      ['/1.0/account', 'get'],
    ] as const) {
      assert.ok(
        doc.paths[path]?.[method],
        `${method.toUpperCase()} ${path} in ${Object.keys(doc.paths).join(', ')}`,
      );
    }
  });

  test('/healthz answers ok without a key', async () => {
    const response = await presso.request('/healthz', { auth: false });
    assert.equal(response.status, 200);
    const body = (await response.json()) as { status: string };
    assert.equal(body.status, 'ok');
  });

  test('an unknown route is 404 with the error body', async () => {
    const response = await presso.request('/1.0/nothing-here');
    assert.equal(response.status, 404);
    const body = (await response.json()) as { success: boolean; id: string };
    assert.equal(body.success, false);
    assert.equal(response.headers.get('x-request-id'), body.id);
  });
});
