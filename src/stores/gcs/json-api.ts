/**
 * The HTTP requests of the GCS client, sent with node:http(s) through the guarded agents. Redirects are never
 * followed (a 3xx is an answer like any other, and the JSON API sends none); an answer's body is read up to
 * 1 MiB (object resources and error documents: object data is never downloaded). A request whose body can be
 * made again (a buffer, or a function that opens the file again) is retried on 408, 429 and 5xx answers and
 * on a reset connection, twice, as the SDK did; a refused address is never retried.
 */
import http from 'node:http';
import https from 'node:https';
import type { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { setTimeout as sleep } from 'node:timers/promises';
import type { GuardedAgents } from '../../outbound/guarded-agents.ts';

export interface GcsRequest {
  method: 'GET' | 'POST' | 'PUT' | 'DELETE';
  url: string;
  headers: Record<string, string | number>;
  /** A buffer, or a function that opens the body again for each attempt. */
  body?: Buffer | (() => Readable);
  signal?: AbortSignal;
}

export interface GcsAnswer {
  status: number;
  headers: http.IncomingHttpHeaders;
  body: Buffer;
}

const MAX_ANSWER_BYTES = 1024 ** 2;
/** No byte either way for this long ends the request (the SDK's default was 60 s). */
const IDLE_MS = 60_000;
const RETRY_DELAYS_MS = [500, 2000];
const RETRY_STATUSES = new Set([408, 429, 500, 502, 503, 504]);

export async function send(agents: GuardedAgents, request: GcsRequest): Promise<GcsAnswer> {
  for (let attempt = 0; ; attempt++) {
    const delay = RETRY_DELAYS_MS[attempt];
    try {
      const answer = await sendOnce(agents, request);
      if (delay === undefined || !RETRY_STATUSES.has(answer.status)) return answer;
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code;
      const transient = code === 'ECONNRESET' || code === 'EPIPE' || code === 'ETIMEDOUT';
      if (delay === undefined || !transient || request.signal?.aborted) throw error;
    }
    await sleep(delay, undefined, { signal: request.signal });
  }
}

function sendOnce(agents: GuardedAgents, request: GcsRequest): Promise<GcsAnswer> {
  const url = new URL(request.url);
  const transport = url.protocol === 'http:' ? http : https;
  return new Promise((resolve, reject) => {
    const outgoing = transport.request(
      url,
      {
        method: request.method,
        headers: request.headers,
        agent: agents.forUrl(url),
        signal: request.signal,
        timeout: IDLE_MS,
      },
      (response) => {
        const chunks: Buffer[] = [];
        let size = 0;
        response.on('data', (chunk: Buffer) => {
          size += chunk.length;
          if (size > MAX_ANSWER_BYTES) response.destroy(new Error('the answer is larger than 1 MiB'));
          else chunks.push(chunk);
        });
        response.on('end', () =>
          resolve({
            status: response.statusCode ?? 0,
            headers: response.headers,
            body: Buffer.concat(chunks),
          }),
        );
        response.on('error', reject);
      },
    );
    outgoing.on('error', reject);
    outgoing.on('timeout', () =>
      outgoing.destroy(Object.assign(new Error(`${url.host} did not answer in time`), { code: 'ETIMEDOUT' })),
    );
    // The connect phase has its own, shorter limit (PRESSO_FETCH_CONNECT_TIMEOUT).
    outgoing.on('socket', (socket) => {
      if (!('connecting' in socket) || !socket.connecting) return;
      const timer = setTimeout(
        () =>
          outgoing.destroy(
            Object.assign(new Error(`${url.host} did not accept the connection in time`), {
              code: 'ETIMEDOUT',
            }),
          ),
        agents.connectTimeoutMs,
      );
      socket.once('connect', () => clearTimeout(timer));
      socket.once('close', () => clearTimeout(timer));
    });
    const { body } = request;
    if (body === undefined || Buffer.isBuffer(body)) outgoing.end(body);
    // A server may answer before the body is sent (a 404): the answer counts, not the broken upload.
    else pipeline(body(), outgoing).catch(() => {});
  });
}

/** The JSON of an answer, or undefined when it has none. */
export function answerJson(answer: GcsAnswer): Record<string, unknown> | undefined {
  try {
    const value = JSON.parse(answer.body.toString('utf8')) as unknown;
    return value !== null && typeof value === 'object' ? (value as Record<string, unknown>) : undefined;
  } catch {
    return undefined;
  }
}

/** The kind's name for people, in store errors. */
export const GCS_NAME = 'Google Cloud Storage';
