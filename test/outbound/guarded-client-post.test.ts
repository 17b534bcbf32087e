import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { TestServer } from './helpers.ts';
import { client, isFieldError, isUpstream, serve } from './helpers.ts';

describe('post (webhooks)', () => {
  let server: TestServer;
  let target: TestServer;
  const outbound = client({ allowCidrs: ['127.0.0.1/32'] });
  before(async () => {
    target = await serve('127.0.0.1', (_req, res) => res.end());
    server = await serve('127.0.0.1', (req, res) => {
      if (req.url === '/redirect') {
        res.writeHead(302, { location: `${target.origin}/` });
        return res.end();
      }
      if (req.url === '/slow') return;
      res.statusCode = 201;
      res.end('thanks');
    });
  });
  after(async () => {
    await outbound.close();
    await Promise.all([server.close(), target.close()]);
  });

  it('posts the body and headers and returns the status', async () => {
    const result = await outbound.post({
      url: `${server.origin}/hook`,
      body: '{"id":"j1"}',
      headers: { 'Content-Type': 'application/json', 'X-Signature': 'abc' },
      timeoutMs: 2_000,
    });
    assert.equal(result.status, 201);
    assert.ok(result.durationMs >= 0);
    const request = server.requests.at(-1)!;
    assert.equal(request.method, 'POST');
    assert.equal(request.body, '{"id":"j1"}');
    assert.equal(request.headers['content-type'], 'application/json');
    assert.equal(request.headers['x-signature'], 'abc');
    assert.equal(request.headers['user-agent'], 'Presso/1.0 (+https://presso.example)');
  });

  it('does not follow redirects', async () => {
    const result = await outbound.post({
      url: `${server.origin}/redirect`,
      body: '',
      headers: {},
      timeoutMs: 2_000,
    });
    assert.equal(result.status, 302);
    assert.equal(target.requests.length, 0);
  });

  it('times out with UpstreamError', async () => {
    await assert.rejects(
      outbound.post({ url: `${server.origin}/slow`, body: 'x', headers: {}, timeoutMs: 200 }),
      isUpstream(/\/slow did not answer in full within 0\.2 seconds/),
    );
  });

  it('refuses loopback without an allow-list', async () => {
    const guarded = client();
    try {
      const before = server.requests.length;
      await assert.rejects(
        guarded.post({ url: `${server.origin}/hook`, body: 'x', headers: {}, timeoutMs: 2_000 }),
        isFieldError('url', /not allowed: 127\.0\.0\.1 \(loopback\)/),
      );
      assert.equal(server.requests.length, before);
    } finally {
      await guarded.close();
    }
  });

  it('reports a refused connection as UpstreamError', async () => {
    const closed = await serve('127.0.0.1', (_req, res) => res.end());
    await closed.close();
    await assert.rejects(
      outbound.post({ url: `${closed.origin}/`, body: 'x', headers: {}, timeoutMs: 2_000 }),
      isUpstream(/refused the connection/),
    );
  });
});

describe('checkUrl', () => {
  const outbound = client();
  // localhost may also resolve to ::1, and every resolved address must pass.
  const allowing = client({ allowCidrs: ['127.0.0.1/32', '::1/128'] });
  after(async () => {
    await outbound.close();
    await allowing.close();
  });

  it('refuses bad syntax and schemes on the given field', async () => {
    for (const url of ['ftp://example.com/', 'javascript:alert(1)', 'example.com/x', '', 'http://']) {
      await assert.rejects(
        outbound.checkUrl(url, 'callback_url'),
        isFieldError('callback_url', /absolute http or https URL/),
      );
    }
  });

  it('refuses literal and resolved special addresses', async () => {
    for (const url of [
      'http://127.0.0.1/',
      'http://[::1]/',
      'http://[::ffff:169.254.169.254]/',
      'http://0/',
      'http://localhost/',
    ]) {
      await assert.rejects(outbound.checkUrl(url, 'url'), isFieldError('url', /not allowed/), url);
    }
  });

  it('accepts public and allow-listed addresses', async () => {
    await outbound.checkUrl('https://93.184.216.34/a', 'url');
    await outbound.checkUrl('http://[2606:4700::1111]:8080/', 'url');
    await allowing.checkUrl('http://127.0.0.1:1/', 'url');
    await allowing.checkUrl('http://localhost:1/', 'url');
  });

  it('refuses a name that does not exist', async () => {
    await assert.rejects(
      outbound.checkUrl('http://no-such-host.invalid/', 'url'),
      isFieldError('url', /could not be resolved/),
    );
  });
});
