/**
 * The dashboard's session cookie, `presso_session`: `HttpOnly` (no script reads it), `Secure` (HTTPS only,
 * as the service is), `SameSite=Strict` (no other site's page sends it), `Path=/`, and a `Max-Age` equal to
 * the session's absolute lifetime.
 */
export const SESSION_COOKIE = 'presso_session';
const FLAGS = 'Path=/; HttpOnly; Secure; SameSite=Strict';

/** The session cookie's value in a Cookie header (the first one, as browsers send the most specific first). */
export function readSessionCookie(header: string | undefined): string | undefined {
  if (!header) return undefined;
  for (const part of header.split(';')) {
    const pair = part.trim();
    const equals = pair.indexOf('=');
    if (equals !== -1 && pair.slice(0, equals) === SESSION_COOKIE) return pair.slice(equals + 1);
  }
  return undefined;
}

export function sessionCookie(sessionId: string, maxAgeSeconds: number): string {
  return `${SESSION_COOKIE}=${sessionId}; Max-Age=${maxAgeSeconds}; ${FLAGS}`;
}

export function clearedSessionCookie(): string {
  return `${SESSION_COOKIE}=; Max-Age=0; ${FLAGS}`;
}
