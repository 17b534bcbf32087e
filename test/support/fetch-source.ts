/** A fetch source for the /1.0/fetch tests of both harnesses, and the request Presso must send it by default. */
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import type http from 'node:http';
import type { CompletedResult } from '../api/helpers.ts';
import type { TestClient } from './presso.ts';
import { type Received, type Receiver, startReceiver } from './receiver.ts';

export function servePng(res: http.ServerResponse, body: Buffer): void {
  res.writeHead(200, { 'content-type': 'image/png', 'content-length': body.length }).end(body);
}

/** Serves `body` as a PNG at every path, except 404 under `/missing`. */
export function startPngSource(body: Buffer, host?: string): Promise<Receiver> {
  return startReceiver((req, res) => {
    if (req.url.startsWith('/missing')) {
      res.writeHead(404, { 'content-type': 'text/plain' }).end('nope');
      return;
    }
    servePng(res, body);
  }, host);
}

/** The headers of a fetch that named none of its own: a browser-like GET without credentials. */
export function assertDefaultFetchRequest(req: Received, path: string): void {
  assert.equal(req.method, 'GET');
  assert.equal(req.url, path);
  assert.match(String(req.headers['user-agent']), /^Presso\/1\.0 \(\+https?:\/\/[^)]+\)$/);
  assert.equal(req.headers.accept, '*/*');
  assert.equal(req.headers['accept-language'], 'en-US,en;q=0.8');
  assert.equal(req.headers['cache-control'], 'no-cache');
  assert.equal(req.headers.pragma, 'no-cache');
  assert.equal(req.headers.authorization, undefined);
}

/**
 * Fetches `/pics/cat.png` from `source` (which serves `served`) as WebP, and checks the request Presso sent
 * and the input it recorded: name from the URL, format, size and SHA-1 of the bytes served.
 */
export async function fetchCatAsWebp(
  presso: TestClient,
  source: Receiver,
  served: Buffer,
): Promise<CompletedResult> {
  const before = source.requests.length;
  const response = await presso.fetchJson({
    url: `${source.origin}/pics/cat.png`,
    image: { format: 'webp' },
  });
  assert.equal(response.status, 200);
  const result = (await response.json()) as CompletedResult;
  assertDefaultFetchRequest(source.requests[before]!, '/pics/cat.png');
  assert.equal(result.input.name, 'cat.png');
  assert.equal(result.input.format, 'png');
  assert.equal(result.input.size, served.length);
  assert.equal(result.input.sha1, createHash('sha1').update(served).digest('hex'));
  return result;
}
