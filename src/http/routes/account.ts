/** GET /1.0/account: verifies the key and returns the account, its rate-limit state and usage. */
import type { FastifyInstance } from 'fastify';
import { Type } from 'typebox';
import type { AccountService } from '../../accounts/account-service.ts';
import type { RateLimiter } from '../../ratelimit/rate-limiter.ts';
import { requireAccount } from '../request-context.ts';
import { commonErrors } from '../schemas.ts';

const AccountSchema = Type.Object({
  id: Type.String(),
  name: Type.String(),
  createdAt: Type.String({ format: 'date-time' }),
  rateLimit: Type.Object({
    limit: Type.Integer(),
    remaining: Type.Integer(),
    reset: Type.Integer({ description: 'Seconds until the window frees capacity.' }),
    windowSeconds: Type.Integer(),
  }),
  usage: Type.Object({
    requests: Type.Integer(),
    jobs: Type.Integer(),
    bytesIn: Type.Integer(),
    bytesOut: Type.Integer(),
  }),
});

export async function accountRoute(
  app: FastifyInstance,
  options: { accounts: AccountService; limiter: RateLimiter; windowMs: number },
) {
  app.get(
    '/1.0/account',
    {
      config: { auth: true },
      schema: {
        summary: 'Verify the API key and show the account',
        response: { 200: AccountSchema, ...commonErrors },
      },
    },
    async (request, reply) => {
      const account = requireAccount(request.account);
      const usage = await options.accounts.getUsage(account.id);
      return {
        id: account.id,
        name: account.name,
        createdAt: new Date(account.createdAt).toISOString(),
        rateLimit: {
          limit: account.rateLimit,
          remaining: Number(reply.getHeader('x-ratelimit-remaining') ?? account.rateLimit),
          reset: Number(reply.getHeader('x-ratelimit-reset') ?? 0),
          windowSeconds: Math.round(options.windowMs / 1000),
        },
        usage,
      };
    },
  );
}
