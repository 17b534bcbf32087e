/**
 * The gate every request passes: HTTPS only, then API-key authentication for routes that need it,
 * then the rolling-window rate limit (per key, or per client address where there is no key). Every
 * response, errors included, carries the X-RateLimit-* headers.
 */
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { AccountService } from '../../accounts/account-service.ts';
import { InsecureTransportError, RateLimitedError, UnauthorizedError } from '../../errors/catalog.ts';
import type { RateLimiter, RateLimitState } from '../../ratelimit/rate-limiter.ts';

export interface AccessControlOptions {
  accounts: AccountService;
  limiter: RateLimiter;
  /** Limit for requests without a valid key, counted per client address. */
  anonymousLimit: number;
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
  const { accounts, limiter, anonymousLimit } = options;

  const limit = async (reply: FastifyReply, key: string, max: number) => {
    const state = await limiter.consume(key, max);
    setHeaders(reply, state);
    if (!state.allowed) throw new RateLimitedError(state.resetSeconds);
  };
  const limitAnonymous = (request: FastifyRequest, reply: FastifyReply) =>
    limit(reply, `ip:${request.ip}`, anonymousLimit);

  app.decorateRequest('account', undefined);
  app.decorateRequest('apiKeyId', undefined);
  app.addHook('onRequest', async (request, reply) => {
    if (request.protocol !== 'https') {
      await limitAnonymous(request, reply).catch(() => {});
      throw new InsecureTransportError();
    }
    if (!request.routeOptions.config.auth) {
      await limitAnonymous(request, reply);
      return;
    }
    const key = extractApiKey(request.headers.authorization);
    const found = key === undefined ? undefined : await accounts.authenticate(key);
    if (!found) {
      await limitAnonymous(request, reply);
      if (!request.headers.authorization)
        throw new UnauthorizedError('An API key is required (HTTP Basic or Bearer).');
      if (key === undefined) throw new UnauthorizedError('The Authorization header is malformed.');
      throw new UnauthorizedError('The API key is invalid or has been revoked.');
    }
    request.account = found.account;
    request.apiKeyId = found.keyId;
    request.log = request.log.child({ account: found.account.id, key: found.keyId });
    await limit(reply, `key:${found.keyId}`, found.account.rateLimit);
  });
}
