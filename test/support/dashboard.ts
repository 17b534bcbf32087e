/**
 * Dashboard sign-in for tests, over any TestClient (app.inject() or real HTTPS): the session cookie and its
 * CSRF token, and requests made with them as a browser would.
 */
import assert from 'node:assert/strict';
import type { TestClient, TestRequestInit } from './presso.ts';

export const PASSWORD = 'correct horse battery staple';

export interface ErrorBody {
  message: string;
  status: number;
  id: string;
}

export interface SessionBody {
  user: { id: string; email: string; role: string };
  account: { id: string; name: string };
  csrfToken: string;
}

type Answer = Awaited<ReturnType<TestClient['request']>>;

export interface SignedInClient {
  cookie: string;
  csrfToken: string;
  body: SessionBody;
  /** A request with the session cookie (and, unless `csrf: false`, the CSRF token); no API key. */
  request(path: string, init?: TestRequestInit & { csrf?: boolean }): Promise<Answer>;
}

/** A response's JSON body as the type the test expects (the assertions check it). */
export async function bodyOf<T>(response: { json(): Promise<unknown> }): Promise<T> {
  return (await response.json()) as T;
}

/** The `presso_session=<value>` pair of a Set-Cookie header. */
export function sessionPair(response: { headers: { get(name: string): string | null } }): string {
  const header = response.headers.get('set-cookie') ?? '';
  const pair = header.split(';')[0] ?? '';
  assert.match(pair, /^presso_session=[A-Za-z0-9_-]{43}$/);
  return pair;
}

export async function signIn(
  client: TestClient,
  email: string,
  password = PASSWORD,
  headers: Record<string, string> = {},
): Promise<SignedInClient> {
  const response = await client.request('/1.0/session', {
    method: 'POST',
    auth: false,
    headers: { 'content-type': 'application/json', ...headers },
    body: JSON.stringify({ email, password }),
  });
  assert.equal(response.status, 200, await response.clone().text());
  return asSignedIn(client, sessionPair(response), await bodyOf<SessionBody>(response));
}

export function asSignedIn(client: TestClient, cookie: string, body: SessionBody): SignedInClient {
  return {
    cookie,
    csrfToken: body.csrfToken,
    body,
    request(path, { csrf = true, headers, ...init } = {}) {
      const merged: Record<string, string> = { ...(headers as Record<string, string> | undefined) };
      merged.cookie = cookie;
      if (csrf) merged['x-csrf-token'] = body.csrfToken;
      if (typeof init.body === 'string') merged['content-type'] ??= 'application/json';
      return client.request(path, { ...init, headers: merged, auth: false });
    },
  };
}
