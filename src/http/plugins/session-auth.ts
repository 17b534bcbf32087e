/**
 * The checks a dashboard session request passes after the session is found: CSRF on state changes, and the
 * route's role. Keys are exempt from both: a key is sent deliberately by a script, never by a browser on
 * another site's behalf, and its scopes stand in for a role.
 */
import type { FastifyRequest } from 'fastify';
import { CsrfError, ForbiddenError } from '../../errors/catalog.ts';
import { sameToken } from '../../users/session-service.ts';
import type { UserRole } from '../../users/user-store.ts';

const SAFE_METHODS = new Set(['GET', 'HEAD', 'OPTIONS']);

/** A header's single value (a repeated header is refused rather than guessed at). */
function single(value: string | string[] | undefined): string | undefined {
  return Array.isArray(value) ? undefined : value;
}

/**
 * The Origin, when the browser sends it, must be the service's own: browsers send it on every cross-site
 * state change, so another site's form is refused even before the token is looked at.
 */
export function checkOrigin(request: FastifyRequest, origin: string): void {
  const given = request.headers.origin;
  if (given !== undefined && given !== origin)
    throw new CsrfError('This request came from another origin than the dashboard.');
}

/** State changes (anything but GET, HEAD, OPTIONS) carry X-CSRF-Token, the token the session's answer gave. */
export function checkCsrf(request: FastifyRequest, csrfToken: string, origin: string): void {
  if (SAFE_METHODS.has(request.method)) return;
  checkOrigin(request, origin);
  const given = single(request.headers['x-csrf-token']);
  if (given === undefined || !sameToken(given, csrfToken))
    throw new CsrfError('The X-CSRF-Token header is missing or does not match the session.');
}

/** Members read; owners change their account; operators change any account and see the fleet. */
export function checkRole(role: UserRole, needed: 'owner' | 'operator' | undefined): void {
  if (needed === undefined || role === 'operator') return;
  if (needed === 'owner' && role === 'owner') return;
  throw new ForbiddenError(
    needed === 'operator' ? 'Only an operator may do this.' : 'Only an owner of the account may do this.',
  );
}
