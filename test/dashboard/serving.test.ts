/**
 * The dashboard as the API process serves it over HTTPS: index.html revalidated, hashed assets cached for a
 * year and compressed, the strict Content-Security-Policy on every answer, and the CSP report endpoint.
 */
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { brotliDecompressSync } from 'node:zlib';
import Fastify from 'fastify';
import { DASHBOARD_CSP } from '../../src/http/csp-reports.ts';
import { makeErrorHandler } from '../../src/http/error-handler.ts';
import { dashboardRoute } from '../../src/http/routes/dashboard.ts';
import { startTestPresso, type TestPresso } from '../support/presso.ts';
import { ensureDashboardBuilt } from './build.ts';

let presso: TestPresso;
const dir = ensureDashboardBuilt();

before(async () => {
  presso = await startTestPresso();
});
after(() => presso.stop());

const noKey = { auth: false } as const;

test('/dashboard redirects to /dashboard/, which is the built index.html, revalidated on every load', async () => {
  const redirect = await presso.request('/dashboard', { ...noKey, redirect: 'manual' });
  assert.equal(redirect.status, 301);
  assert.equal(redirect.headers.get('location'), '/dashboard/');

  const index = await presso.request('/dashboard/', noKey);
  assert.equal(index.status, 200);
  assert.equal(index.headers.get('content-type'), 'text/html; charset=utf-8');
  assert.equal(index.headers.get('cache-control'), 'no-cache');
  const html = await index.text();
  assert.equal(html, readFileSync(join(dir, 'index.html'), 'utf8'));
  assert.match(
    html,
    /<script type="module" crossorigin src="\/dashboard\/assets\/index-[\w-]+\.js"><\/script>/,
  );
  // Nothing inline: every script and stylesheet is a file of the build.
  assert.doesNotMatch(html, /<script(?![^>]*\bsrc=)[^>]*>/);
  assert.doesNotMatch(html, /<style|style=/);

  const etag = index.headers.get('etag');
  assert.ok(etag);
  const again = await presso.request('/dashboard/', { ...noKey, headers: { 'if-none-match': etag } });
  assert.equal(again.status, 304);
});

test('every dashboard answer carries the strict CSP, its report endpoint and no framing', async () => {
  const index = await presso.request('/dashboard/', noKey);
  const csp = index.headers.get('content-security-policy') ?? '';
  assert.equal(csp, DASHBOARD_CSP);
  for (const directive of [
    "default-src 'self'",
    "script-src 'self'",
    "style-src 'self'",
    "img-src 'self' blob: data:",
    "media-src 'self' blob:",
    "connect-src 'self'",
    "frame-ancestors 'none'",
    "base-uri 'none'",
    "form-action 'self'",
    'report-uri /1.0/csp-reports',
    'report-to csp',
  ]) {
    assert.ok(csp.split('; ').includes(directive), `${directive} in ${csp}`);
  }
  assert.doesNotMatch(csp, /unsafe-inline|unsafe-eval/);
  assert.equal(index.headers.get('reporting-endpoints'), 'csp="/1.0/csp-reports"');
  assert.equal(index.headers.get('x-frame-options'), 'DENY');
  assert.equal(index.headers.get('x-content-type-options'), 'nosniff');
});

test('hashed assets are cached for a year, typed, and sent compressed to a client that takes brotli', async () => {
  const assets = readdirSync(join(dir, 'assets'));
  const script = assets.find((name) => name.endsWith('.js'));
  const style = assets.find((name) => name.endsWith('.css'));
  assert.ok(script && style, `a script and a stylesheet in ${assets.join(', ')}`);
  const js = await presso.request(`/dashboard/assets/${script}`, {
    ...noKey,
    headers: { 'accept-encoding': 'br' },
  });
  assert.equal(js.status, 200);
  assert.equal(js.headers.get('cache-control'), 'public, max-age=31536000, immutable');
  assert.equal(js.headers.get('content-type'), 'text/javascript; charset=utf-8');
  assert.equal(js.headers.get('content-encoding'), 'br');
  assert.equal(js.headers.get('vary'), 'accept-encoding');
  // undici decodes br itself: the bytes read are the file's.
  const body = Buffer.from(await js.arrayBuffer());
  const original = readFileSync(join(dir, 'assets', script));
  assert.ok(body.equals(original) || brotliDecompressSync(body).equals(original));

  const css = await presso.request(`/dashboard/assets/${style}`, {
    ...noKey,
    headers: { 'accept-encoding': 'identity' },
  });
  assert.equal(css.headers.get('content-type'), 'text/css; charset=utf-8');
  assert.equal(css.headers.get('content-encoding'), null);
  assert.equal(await css.text(), readFileSync(join(dir, 'assets', style), 'utf8'));
});

test('a path that names no file of the build is 404 in the error shape, never a file outside it', async () => {
  for (const path of [
    '/dashboard/assets/nothing.js',
    '/dashboard/../package.json',
    '/dashboard/%2e%2e/package.json',
    '/dashboard/assets/..%2f..%2fpackage.json',
  ]) {
    const response = await presso.request(path, noKey);
    assert.equal(response.status, 404, path);
    const body = (await response.json()) as { success: boolean; status: number };
    assert.equal(body.success, false);
  }
  const index = await presso.request('/dashboard/index.html', { ...noKey, redirect: 'manual' });
  assert.equal(index.status, 301);
});

test('a server whose dashboard is not built says how to build it (503), the API unaffected', async () => {
  const app = Fastify();
  app.setErrorHandler(makeErrorHandler(1024));
  await app.register(dashboardRoute, { dir: join(dir, 'missing') });
  const response = await app.inject({ url: '/dashboard/' });
  assert.equal(response.statusCode, 503);
  assert.match(response.json<{ message: string }>().message, /scripts\/setup\.sh/);
  await app.close();
});

test('CSP violation reports in both browser formats are counted and kept, cut short', async () => {
  const log = presso.presso.app.cspReports;
  const before = log.count;
  const legacy = await presso.request('/1.0/csp-reports', {
    ...noKey,
    method: 'POST',
    headers: { 'content-type': 'application/csp-report' },
    body: JSON.stringify({
      'csp-report': {
        'document-uri': `${presso.url}/dashboard/`,
        'violated-directive': 'script-src-elem',
        'effective-directive': 'script-src-elem',
        'blocked-uri': 'inline',
        'script-sample': 'x'.repeat(5000),
      },
    }),
  });
  assert.equal(legacy.status, 204);
  const reporting = await presso.request('/1.0/csp-reports', {
    ...noKey,
    method: 'POST',
    headers: { 'content-type': 'application/reports+json' },
    body: JSON.stringify([
      {
        type: 'csp-violation',
        url: `${presso.url}/dashboard/`,
        body: {
          documentURL: `${presso.url}/dashboard/`,
          effectiveDirective: 'img-src',
          blockedURL: 'https://x.test/a.png',
        },
      },
      { type: 'deprecation', body: {} },
    ]),
  });
  assert.equal(reporting.status, 204);
  assert.equal(log.count, before + 2);
  const [first, second] = log.recent.slice(-2);
  assert.equal(first?.directive, 'script-src-elem');
  assert.equal(first?.sample.length, 300);
  assert.deepEqual(second, {
    documentUri: `${presso.url}/dashboard/`,
    directive: 'img-src',
    blockedUri: 'https://x.test/a.png',
    sample: '',
  });

  const broken = await presso.request('/1.0/csp-reports', {
    ...noKey,
    method: 'POST',
    headers: { 'content-type': 'application/csp-report' },
    body: '{not json',
  });
  assert.equal(broken.status, 422);
  const huge = await presso.request('/1.0/csp-reports', {
    ...noKey,
    method: 'POST',
    headers: { 'content-type': 'application/csp-report' },
    body: JSON.stringify({ 'csp-report': { 'blocked-uri': 'y'.repeat(100_000) } }),
  });
  assert.equal(huge.status, 413);
  assert.equal(log.count, before + 2);
});
