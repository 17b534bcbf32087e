/**
 * An OAuth access token for a service account (RFC 7523 JWT bearer grant, as Google's libraries do it): a JWT
 * signed with the key file's private key, exchanged at Google's token endpoint through the guarded agents.
 * The endpoint and scope are fixed here: the key file's own `token_uri` or `universe_domain` are never used,
 * so a key file cannot point the token request anywhere else.
 */
import { sign } from 'node:crypto';
import type { GuardedAgents } from '../../outbound/guarded-agents.ts';
import { StoreError } from '../external-store.ts';
import { answerJson, GCS_NAME, send } from './json-api.ts';

export const TOKEN_URL = 'https://oauth2.googleapis.com/token';
/** The scope the SDK asked for: writing objects with a predefined ACL needs full control. */
const SCOPE = 'https://www.googleapis.com/auth/devstorage.full_control';
const LIFETIME_S = 3600;

const base64url = (value: string | Buffer) => Buffer.from(value).toString('base64url');

export async function serviceAccountToken(
  agents: GuardedAgents,
  account: { client_email: string; private_key: string },
  signal: AbortSignal | undefined,
): Promise<string> {
  const now = Math.floor(Date.now() / 1000);
  const header = base64url(JSON.stringify({ alg: 'RS256', typ: 'JWT' }));
  const claims = base64url(
    JSON.stringify({
      iss: account.client_email,
      scope: SCOPE,
      aud: TOKEN_URL,
      iat: now,
      exp: now + LIFETIME_S,
    }),
  );
  let signature: Buffer;
  try {
    signature = sign('sha256', Buffer.from(`${header}.${claims}`), account.private_key);
  } catch (error) {
    throw new StoreError(
      GCS_NAME,
      'credentials',
      'the private key of the service account could not be read',
      error,
    );
  }
  const answer = await send(agents, {
    method: 'POST',
    url: TOKEN_URL,
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: Buffer.from(
      new URLSearchParams({
        grant_type: 'urn:ietf:params:oauth:grant-type:jwt-bearer',
        assertion: `${header}.${claims}.${base64url(signature)}`,
      }).toString(),
    ),
    signal,
  });
  const json = answerJson(answer);
  const token = json?.access_token;
  if (answer.status === 200 && typeof token === 'string') return token;
  // invalid_grant, invalid_client, unauthorized_client: the key or the account is not accepted.
  const detail = String(json?.error_description ?? json?.error ?? `HTTP ${answer.status}`).slice(0, 300);
  throw new StoreError(GCS_NAME, answer.status >= 500 ? 'other' : 'credentials', `token request: ${detail}`);
}
