/**
 * Loads pages of an unpacked site in headless Chromium (Debian's, driven by playwright-core) from a local
 * HTTP server, and reports every request that failed or answered 4xx/5xx, every image that did not decode,
 * and the globals the site's scripts set.
 */
import { createReadStream, statSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { extname, join, normalize } from 'node:path';
import { type Browser, chromium } from 'playwright-core';
import { scaledMs } from '../../support/time-scale.ts';

const TYPES: Record<string, string> = {
  '.html': 'text/html; charset=utf-8',
  '.css': 'text/css',
  '.js': 'text/javascript',
  '.json': 'application/json',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
  '.jpg': 'image/jpeg',
  '.jpeg': 'image/jpeg',
  '.webp': 'image/webp',
  '.avif': 'image/avif',
  '.gif': 'image/gif',
};

export interface PageLoad {
  failed: string[];
  requested: string[];
  brokenImages: string[];
  globals: Record<string, unknown>;
}

const CHROMIUM_ARGS = [
  '--no-sandbox',
  '--disable-gpu',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
  '--no-first-run',
  '--disable-quic',
];

let shared: Promise<Browser> | undefined;

/**
 * One Chromium for the test file (a launch costs about a CPU-second); `closeBrowser` ends it. Every page
 * opens in a browser context of its own (`browser.newPage`), so no load sees another's cache or cookies.
 */
function browser(): Promise<Browser> {
  shared ??= chromium.launch({ executablePath: '/usr/bin/chromium', args: CHROMIUM_ARGS });
  return shared;
}

export async function closeBrowser(): Promise<void> {
  const launched = shared;
  shared = undefined;
  await (await launched)?.close();
}

export async function loadPages(root: string, pages: string[], globals: string[]): Promise<PageLoad[]> {
  const server = createServer((request, response) => {
    const path = normalize(decodeURIComponent(new URL(request.url ?? '/', 'http://x').pathname)).replace(
      /^(\.\.[/\\])+/,
      '',
    );
    const file = join(root, path);
    try {
      if (!statSync(file).isFile()) throw new Error('not a file');
    } catch {
      response.writeHead(404).end();
      return;
    }
    response.writeHead(200, {
      'content-type': TYPES[extname(file).toLowerCase()] ?? 'application/octet-stream',
    });
    createReadStream(file).pipe(response);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const instance = await browser();
  try {
    const loads: PageLoad[] = [];
    for (const page of pages) {
      const tab = await instance.newPage();
      tab.setDefaultTimeout(scaledMs(120_000)); // a hang guard (Playwright's default: 30 s), scaled
      const load: PageLoad = { failed: [], requested: [], brokenImages: [], globals: {} };
      tab.on('requestfailed', (request) =>
        load.failed.push(`${request.url()} (${request.failure()?.errorText})`),
      );
      tab.on('response', (response) => {
        load.requested.push(response.url().slice(base.length));
        if (response.status() >= 400) load.failed.push(`${response.url()} (${response.status()})`);
      });
      await tab.goto(`${base}/${page}`, { waitUntil: 'networkidle' });
      // Runs in the page: the tsconfig has no DOM types, so the elements are described by what is read.
      type Img = { complete: boolean; naturalWidth: number; outerHTML: string };
      load.brokenImages = await tab.$$eval('img', (images) =>
        (images as unknown as Img[])
          .filter((img) => !img.complete || img.naturalWidth === 0)
          .map((img) => img.outerHTML),
      );
      for (const name of globals) {
        load.globals[name] = await tab.evaluate((key) => (globalThis as Record<string, unknown>)[key], name);
      }
      loads.push(load);
      await tab.close();
    }
    return loads;
  } finally {
    server.close();
  }
}
