import assert from 'node:assert/strict';
import { createHash, randomBytes } from 'node:crypto';
import { existsSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { after, before, describe, it } from 'node:test';
import { ValidationError } from '../../src/errors/catalog.ts';
import type { TestServer } from './helpers.ts';
import { client, isFieldError, isUpstream, scratchFiles, serve } from './helpers.ts';

const destination = scratchFiles();

describe('download from an allow-listed server', () => {
  const payload = randomBytes(1024 * 1024 + 17);
  let server: TestServer;
  const outbound = client({ allowCidrs: ['127.0.0.1/32'] });
  before(async () => {
    server = await serve('127.0.0.1', (req, res) => {
      if (req.url?.startsWith('/named')) {
        res.setHeader(
          'content-disposition',
          `attachment; filename="plain.txt"; filename*=UTF-8''%E2%82%AC%20rates.txt`,
        );
      }
      res.setHeader('content-type', 'application/octet-stream');
      // Several writes without Content-Length: the client must stream, not rely on a declared size.
      for (let offset = 0; offset < payload.length; offset += 65_536)
        res.write(payload.subarray(offset, offset + 65_536));
      res.end();
    });
  });
  after(async () => {
    await outbound.close();
    await server.close();
  });

  it('sends the default headers, writes the body and reports SHA-1, size and names', async () => {
    const path = destination();
    const result = await outbound.download({
      url: `${server.origin}/files/report%20final.pdf?sig=1`,
      destinationPath: path,
      maxBytes: 10 * 1024 * 1024,
    });
    const headers = server.requests.at(-1)!.headers;
    assert.equal(headers['user-agent'], 'Presso/1.0 (+https://presso.example)');
    assert.equal(headers.accept, '*/*');
    assert.equal(headers['accept-language'], 'en-US,en;q=0.8');
    assert.equal(headers['cache-control'], 'no-cache');
    assert.equal(headers.pragma, 'no-cache');
    assert.equal(headers.authorization, undefined);
    assert.equal(result.size, payload.length);
    assert.equal(result.sha1, createHash('sha1').update(payload).digest('hex'));
    assert.deepEqual(await readFile(path), payload);
    assert.equal(result.fileName, 'report final.pdf');
    assert.equal(result.contentType, 'application/octet-stream');
    assert.equal(result.finalUrl, `${server.origin}/files/report%20final.pdf?sig=1`);
  });

  it('lets custom headers override (any case) and extend the defaults', async () => {
    await outbound.download({
      url: `${server.origin}/x`,
      headers: { 'USER-AGENT': 'Custom/2', 'X-Extra': 'yes' },
      destinationPath: destination(),
      maxBytes: 10 * 1024 * 1024,
    });
    const headers = server.requests.at(-1)!.headers;
    assert.equal(headers['user-agent'], 'Custom/2');
    assert.equal(headers['x-extra'], 'yes');
    assert.equal(headers.accept, '*/*');
  });

  it('turns userinfo into Basic auth and keeps it out of the request line', async () => {
    const result = await outbound.download({
      url: `http://al%40ice:p%3Ass@127.0.0.1:${server.port}/named`,
      destinationPath: destination(),
      maxBytes: 10 * 1024 * 1024,
    });
    const request = server.requests.at(-1)!;
    assert.equal(request.headers.authorization, `Basic ${Buffer.from('al@ice:p:ss').toString('base64')}`);
    assert.equal(request.url, '/named');
    assert.equal(result.finalUrl, `${server.origin}/named`);
    assert.equal(result.fileName, '€ rates.txt');
  });

  it('connects to an allow-listed name through the checked lookup', async () => {
    const viaName = client({ allowCidrs: ['127.0.0.1/32', '::1/128'] });
    try {
      const result = await viaName.download({
        url: `http://localhost:${server.port}/by-name`,
        destinationPath: destination(),
        maxBytes: 10 * 1024 * 1024,
      });
      assert.equal(result.size, payload.length);
      assert.equal(server.requests.at(-1)!.url, '/by-name');
    } finally {
      await viaName.close();
    }
  });

  it('rejects header values that cannot be sent', async () => {
    await assert.rejects(
      outbound.download({
        url: server.origin,
        headers: { 'X-Bad': 'a\r\nInjected: 1' },
        destinationPath: destination(),
        maxBytes: 100,
      }),
      isFieldError('headers.X-Bad', /line breaks/),
    );
  });
});

describe('the address guard on downloads', () => {
  let loopback: TestServer;
  const outbound = client();
  before(async () => {
    loopback = await serve('127.0.0.1', (_req, res) => res.end('secret'));
  });
  after(async () => {
    await outbound.close();
    await loopback.close();
  });

  const refused: Array<[string, (port: number) => string]> = [
    ['a loopback URL', (port) => `http://127.0.0.1:${port}/`],
    ['an IPv4-mapped literal', (port) => `http://[::ffff:127.0.0.1]:${port}/`],
    ['a decimal IPv4 literal', (port) => `http://2130706433:${port}/`],
    ['a hex IPv4 literal', (port) => `http://0x7f.0.0.1:${port}/`],
    ['a hostname resolving to loopback', (port) => `http://localhost:${port}/`],
  ];
  for (const [name, url] of refused) {
    it(`refuses ${name} with ValidationError on url`, async () => {
      const path = destination();
      await assert.rejects(
        outbound.download({ url: url(loopback.port), destinationPath: path, maxBytes: 100 }),
        isFieldError('url', /not allowed/),
      );
      assert.equal(loopback.requests.length, 0);
      assert.equal(existsSync(path), false);
    });
  }

  it('does not echo credentials in the refusal', async () => {
    await assert.rejects(
      outbound.download({
        url: `http://user:hunter2@localhost:${loopback.port}/`,
        destinationPath: destination(),
        maxBytes: 1,
      }),
      (error: unknown) => {
        assert.ok(error instanceof ValidationError);
        assert.doesNotMatch(JSON.stringify(error.toRecord()), /hunter2/);
        return true;
      },
    );
  });

  it('refuses non-http schemes and malformed URLs', async () => {
    for (const url of ['ftp://example.com/a', 'file:///etc/passwd', 'not a url', '/relative']) {
      await assert.rejects(
        outbound.download({ url, destinationPath: destination(), maxBytes: 1 }),
        isFieldError('url', /absolute http or https URL/),
      );
    }
  });
});

describe('redirects', () => {
  let allowed: TestServer; // 127.0.0.2, allow-listed
  let other: TestServer; // 127.0.0.3, allow-listed, another origin
  let forbidden: TestServer; // 127.0.0.1, not allow-listed
  const outbound = client({ allowCidrs: ['127.0.0.2/32', '127.0.0.3/32'], maxRedirects: 3 });
  before(async () => {
    forbidden = await serve('127.0.0.1', (_req, res) => res.end('internal'));
    other = await serve('127.0.0.3', (_req, res) => res.end('other'));
    allowed = await serve('127.0.0.2', (req, res) => {
      const url = new URL(req.url ?? '/', 'http://x');
      const redirect = (location: string) => {
        res.writeHead(302, { location });
        res.end();
      };
      if (url.pathname === '/to-forbidden') return redirect(`${forbidden.origin}/`);
      if (url.pathname === '/to-other') return redirect(`${other.origin}/landing`);
      if (url.pathname === '/a/relative') return redirect('../final.bin');
      // /countdown/N answers after exactly N redirects.
      const left = /^\/countdown\/(\d+)$/.exec(url.pathname)?.[1];
      if (left !== undefined && left !== '0') return redirect(`/countdown/${Number(left) - 1}`);
      res.end('done');
    });
  });
  after(async () => {
    await outbound.close();
    await Promise.all([allowed.close(), other.close(), forbidden.close()]);
  });

  it('refuses a redirect to an address outside the allow-list', async () => {
    await assert.rejects(
      outbound.download({
        url: `${allowed.origin}/to-forbidden`,
        destinationPath: destination(),
        maxBytes: 100,
      }),
      isFieldError('url', /127\.0\.0\.1.*not allowed|not allowed.*127\.0\.0\.1/),
    );
    assert.equal(forbidden.requests.length, 0);
  });

  it('resolves a relative Location and reports the final URL', async () => {
    const result = await outbound.download({
      url: `${allowed.origin}/a/relative`,
      destinationPath: destination(),
      maxBytes: 100,
    });
    assert.equal(result.finalUrl, `${allowed.origin}/final.bin`);
    assert.equal(result.fileName, 'final.bin');
    assert.equal(result.size, 4);
  });

  it('follows exactly maxRedirects redirects', async () => {
    const url = `${allowed.origin}/countdown/3`;
    const result = await outbound.download({ url, destinationPath: destination(), maxBytes: 100 });
    assert.equal(result.finalUrl, `${allowed.origin}/countdown/0`);
  });

  it('fails with UpstreamError when the redirect limit is exceeded', async () => {
    const before = allowed.requests.length;
    await assert.rejects(
      outbound.download({
        url: `${allowed.origin}/countdown/4`,
        destinationPath: destination(),
        maxBytes: 100,
      }),
      isUpstream(/redirected more than 3 times/),
    );
    assert.equal(allowed.requests.length - before, 4);
  });

  it('drops credentials and every caller header on a cross-origin redirect, keeping the defaults', async () => {
    const result = await outbound.download({
      url: `http://user:pw@127.0.0.2:${allowed.port}/to-other`,
      headers: { Cookie: 'session=1', 'X-Api-Key': 'secret', 'User-Agent': 'caller/1' },
      destinationPath: destination(),
      maxBytes: 100,
    });
    assert.equal(result.finalUrl, `${other.origin}/landing`);
    const first = allowed.requests.at(-1)!.headers;
    assert.ok(first.authorization?.startsWith('Basic '));
    assert.equal(first.cookie, 'session=1');
    assert.equal(first['x-api-key'], 'secret');
    assert.equal(first['user-agent'], 'caller/1');
    const second = other.requests.at(-1)!.headers;
    assert.equal(second.authorization, undefined);
    assert.equal(second.cookie, undefined);
    assert.equal(second['x-api-key'], undefined);
    assert.match(second['user-agent'] ?? '', /^Presso\/1\.0 /);
    assert.equal(second.accept, '*/*');
  });

  it('keeps caller headers on a same-origin redirect', async () => {
    const before = allowed.requests.length;
    await outbound.download({
      url: `${allowed.origin}/countdown/2`,
      headers: { 'X-Api-Key': 'secret', Cookie: 'session=1' },
      destinationPath: destination(),
      maxBytes: 100,
    });
    const hops = allowed.requests.slice(before);
    assert.equal(hops.length, 3);
    for (const hop of hops) {
      assert.equal(hop.headers['x-api-key'], 'secret');
      assert.equal(hop.headers.cookie, 'session=1');
    }
  });
});
