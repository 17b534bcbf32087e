/**
 * The account's webhook signing secret: GET shows a hint of it (never the secret: it is shown once, when the
 * account is created or the secret rotated); rotating needs an owner's dashboard session and answers the new
 * secret once. During the grace period (PRESSO_WEBHOOK_SECRET_GRACE) deliveries carry a signature by each
 * secret, so receivers switch at their pace.
 */
import type { FastifyInstance } from 'fastify';
import { Type } from '#typebox';
import { type AccountService, webhookSecretHint } from '../../accounts/account-service.ts';
import { requireAccount } from '../request-context.ts';
import { commonErrors } from '../schemas.ts';

const TAGS = ['Webhooks'];
const iso = (ms: number) => new Date(ms).toISOString();

export async function webhookSecretRoute(
  app: FastifyInstance,
  options: { accounts: AccountService; graceMs: number },
) {
  const { accounts, graceMs } = options;

  app.get(
    '/1.0/webhook-secret',
    {
      config: { auth: true },
      schema: {
        operationId: 'getWebhookSecret',
        tags: TAGS,
        summary: 'A hint of the webhook signing secret (never the secret itself)',
        response: {
          200: Type.Object({
            hint: Type.String({ description: 'The prefix and last four characters.' }),
            rotatedAt: Type.String({ format: 'date-time', description: 'When the secret was made.' }),
            previousValidUntil: Type.Optional(
              Type.String({ format: 'date-time', description: 'The previous secret signs too until then.' }),
            ),
          }),
          ...commonErrors,
        },
      },
    },
    async (request) => {
      const account = requireAccount(request.account);
      const until = account.previousSecretValidUntil;
      return {
        hint: webhookSecretHint(account.webhookSecret),
        rotatedAt: iso(account.webhookSecretRotatedAt ?? account.createdAt),
        ...(until !== undefined && until > Date.now() ? { previousValidUntil: iso(until) } : {}),
      };
    },
  );

  app.post(
    '/1.0/webhook-secret/rotate',
    {
      config: { auth: 'session', role: 'owner' },
      schema: {
        operationId: 'rotateWebhookSecret',
        tags: TAGS,
        summary:
          'Make a new webhook signing secret (shown once); the previous one signs too for a grace period',
        response: {
          200: Type.Object({
            secret: Type.String({ description: 'Shown this once.' }),
            previousValidUntil: Type.String({ format: 'date-time' }),
          }),
          ...commonErrors,
        },
      },
    },
    async (request, reply) => {
      const rotated = await accounts.rotateWebhookSecret(requireAccount(request.account).id, graceMs);
      reply.header('cache-control', 'no-store');
      return { secret: rotated.secret, previousValidUntil: iso(rotated.previousValidUntil) };
    },
  );
}
