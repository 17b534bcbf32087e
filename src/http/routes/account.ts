/**
 * GET /1.0/account: verifies the key and returns the account, its rate-limit state and usage.
 * GET /1.0/usage: the account's usage per UTC day and kind of file, for the dashboard's charts.
 */
import type { FastifyInstance } from 'fastify';
import { Type } from '#typebox';
import type { AccountService } from '../../accounts/account-service.ts';
import { ValidationError } from '../../errors/catalog.ts';
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

const MAX_USAGE_DAYS = 366;

const DailyUsageSchema = Type.Object(
  {
    date: Type.String({ format: 'date', description: 'The UTC day.' }),
    kind: Type.String({
      description:
        'A kind of file (`image`, `video`, …; `unknown` for jobs that failed before detection), or `http`.',
    }),
    requests: Type.Integer({ description: 'Authenticated requests answered (kind `http` only).' }),
    jobs: Type.Integer({ description: 'Jobs that finished that day.' }),
    failures: Type.Integer({ description: 'Of those, the failed ones.' }),
    bytesIn: Type.Integer(),
    bytesOut: Type.Integer(),
  },
  { title: 'DailyUsage' },
);

export async function accountRoute(
  app: FastifyInstance,
  options: { accounts: AccountService; limiter: RateLimiter; windowMs: number },
) {
  app.get(
    '/1.0/account',
    {
      config: { auth: true },
      schema: {
        operationId: 'getAccount',
        tags: ['Account'],
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

  app.get(
    '/1.0/usage',
    {
      config: { auth: true },
      schema: {
        operationId: 'getUsage',
        tags: ['Account'],
        summary: "The account's usage per day and kind of file, oldest day first",
        querystring: Type.Object({
          days: Type.Optional(
            Type.String({
              maxLength: 3,
              description: `Days back, today included: 1–${MAX_USAGE_DAYS} (default 30).`,
            }),
          ),
        }),
        response: { 200: Type.Object({ days: Type.Array(DailyUsageSchema) }), ...commonErrors },
      },
    },
    async (request) => {
      const account = requireAccount(request.account);
      const text = (request.query as { days?: string }).days ?? '30';
      const days = /^[0-9]{1,3}$/.test(text) ? Number(text) : 0;
      if (days < 1 || days > MAX_USAGE_DAYS)
        throw ValidationError.field('days', `must be a whole number from 1 to ${MAX_USAGE_DAYS}`);
      return { days: await options.accounts.listDailyUsage(account.id, days) };
    },
  );
}
