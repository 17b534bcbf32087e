/**
 * The gate every request passes: HTTPS only, then authentication for routes that need it (an API key, or
 * a dashboard session cookie: session-auth.ts), then the rolling-window rate limit (per key or per user, or
 * per client address where there is neither). Every response, errors included, carries the X-RateLimit-*
 * headers.
 */
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { AccountService } from '../../accounts/account-service.ts';
import {
  AccountDisabledError,
  ForbiddenError,
  InsecureTransportError,
  RateLimitedError,
  UnauthorizedError,
} from '../../errors/catalog.ts';
import type { RateLimiter, RateLimitState } from '../../ratelimit/rate-limiter.ts';
import type { SessionService } from '../../users/session-service.ts';
import { readSessionCookie } from '../session-cookie.ts';
import { checkCsrf, checkRole } from './session-auth.ts';

export interface AccessControlOptions {
  accounts: AccountService;
  sessions: SessionService;
  limiter: RateLimiter;
  /** Limit for requests without a valid key, counted per client address. */
  anonymousLimit: number;
  /** The service's own origin (`https://host[:port]`): the only one a session's state change may come from. */
  origin: string;
}

/** Basic (key as user name, empty password, with or without the colon) or Bearer. */
export function extractApiKey(header: string | undefined): string | undefined {
  if (!header) return undefined;
  const [scheme, value] = header.trim().split(/\s+/, 2);
  if (!scheme || !value) return undefined;
  if (scheme.toLowerCase() === 'bearer') return value;
  if (scheme.toLowerCase() !== 'basic') return undefined;
  const decoded = Buffer.from(value, 'base64').toString('utf8');
  const colon = decoded.indexOf(':');
  const user = colon === -1 ? decoded : decoded.slice(0, colon);
  const password = colon === -1 ? '' : decoded.slice(colon + 1);
  return password === '' && user !== '' ? user : undefined;
}

function setHeaders(reply: FastifyReply, state: RateLimitState): void {
  reply.header('x-ratelimit-limit', state.limit);
  reply.header('x-ratelimit-remaining', state.remaining);
  reply.header('x-ratelimit-reset', state.resetSeconds);
}

export function registerAccessControl(app: FastifyInstance, options: AccessControlOptions): void {
  const { accounts, sessions, limiter, anonymousLimit, origin } = options;

  const limit = async (reply: FastifyReply, key: string, max: number) => {
    const state = await limiter.consume(key, max);
    setHeaders(reply, state);
    if (!state.allowed) throw new RateLimitedError(state.resetSeconds);
  };
  const limitAnonymous = (request: FastifyRequest, reply: FastifyReply) =>
    limit(reply, `ip:${request.ip}`, anonymousLimit);

  const withSession = async (request: FastifyRequest, reply: FastifyReply, sessionId: string) => {
    const context = await sessions.authenticate(sessionId);
    if (!context) {
      await limitAnonymous(request, reply);
      throw new UnauthorizedError('The dashboard session is unknown or has expired; sign in again.');
    }
    request.account = context.account;
    request.user = context.user;
    request.authMethod = 'session';
    request.log = request.log.child({ account: context.account.id, user: context.user.id });
    await limit(reply, `user:${context.user.id}`, context.account.rateLimit);
    if (context.account.disabledAt !== undefined) throw new AccountDisabledError();
    checkCsrf(request, context.csrfToken, origin);
    checkRole(context.user.role, request.routeOptions.config.role);
  };

  const withKey = async (request: FastifyRequest, reply: FastifyReply) => {
    const { auth, scope = 'jobs' } = request.routeOptions.config;
    const key = extractApiKey(request.headers.authorization);
    const found = key === undefined ? undefined : await accounts.authenticate(key);
    if (!found) {
      await limitAnonymous(request, reply);
      if (!request.headers.authorization)
        throw new UnauthorizedError(
          auth === 'session'
            ? 'A dashboard session is required: sign in.'
            : 'An API key is required (HTTP Basic or Bearer), or a dashboard session.',
        );
      if (key === undefined) throw new UnauthorizedError('The Authorization header is malformed.');
      throw new UnauthorizedError('The API key is invalid or has been revoked.');
    }
    request.account = found.account;
    request.apiKeyId = found.keyId;
    request.apiKeyScopes = found.scopes;
    request.authMethod = 'key';
    request.log = request.log.child({ account: found.account.id, key: found.keyId });
    await limit(reply, `key:${found.keyId}`, found.account.rateLimit);
    // A leaked key must not reach what only a signed-in user may do (the webhook secret, users, keys).
    if (auth === 'session')
      throw new UnauthorizedError('This route needs a dashboard session; an API key is not accepted here.');
    if (found.account.disabledAt !== undefined) throw new AccountDisabledError();
    if (!found.scopes.includes(scope)) throw new ForbiddenError(`This API key lacks the "${scope}" scope.`);
  };

  app.decorateRequest('account', undefined);
  app.decorateRequest('apiKeyId', undefined);
  app.decorateRequest('apiKeyScopes', undefined);
  app.decorateRequest('user', undefined);
  app.decorateRequest('authMethod', undefined);
  app.addHook('onRequest', async (request, reply) => {
    if (request.protocol !== 'https') {
      await limitAnonymous(request, reply).catch(() => {});
      throw new InsecureTransportError();
    }
    if (!request.routeOptions.config.auth) {
      await limitAnonymous(request, reply);
      return;
    }
    // A key, when sent, decides (scripts); a browser sends the cookie alone.
    const sessionId = readSessionCookie(request.headers.cookie);
    if (request.headers.authorization === undefined && sessionId !== undefined)
      await withSession(request, reply, sessionId);
    else await withKey(request, reply);
  });
}
