/**
 * The account's API keys: GET /1.0/keys lists them (never a secret or hash), POST creates one and answers
 * with its secret, shown this once (an owner's dashboard session only: a leaked key must not mint more),
 * DELETE revokes one (an owner's session, or a key revoking itself). Another account's key id is 404.
 */
import type { FastifyInstance } from 'fastify';
import { Type } from '#typebox';
import type { AccountService } from '../../accounts/account-service.ts';
import { type ApiKeyRecord, KEY_SCOPES, type KeyScope } from '../../accounts/account-store.ts';
import { ForbiddenError, NotFoundError } from '../../errors/catalog.ts';
import { checkRole } from '../plugins/session-auth.ts';
import { requireAccount, requireUser } from '../request-context.ts';
import { commonErrors, ErrorSchema } from '../schemas.ts';

const ScopeSchema = Type.Union(KEY_SCOPES.map((scope) => Type.Literal(scope)));

const KeySchema = Type.Object(
  {
    id: Type.String(),
    name: Type.String(),
    prefix: Type.String({
      description: 'The first characters of the key, to recognise it; never enough to use it.',
    }),
    scopes: Type.Array(ScopeSchema, {
      description:
        '`jobs`: upload, fetch, jobs, account, webhooks. `connectors`: create, test and delete connectors.',
    }),
    createdAt: Type.String({ format: 'date-time' }),
    lastUsedAt: Type.Union([Type.String({ format: 'date-time' }), Type.Null()], {
      description: 'When the key last authenticated a request, to the minute; null if never.',
    }),
    revokedAt: Type.Union([Type.String({ format: 'date-time' }), Type.Null()]),
  },
  { title: 'ApiKey' },
);

const CreateKeySchema = Type.Object(
  {
    name: Type.String({ minLength: 1, maxLength: 100 }),
    scopes: Type.Optional(
      Type.Array(ScopeSchema, { minItems: 1, uniqueItems: true, description: 'Default: ["jobs"].' }),
    ),
  },
  { additionalProperties: false },
);

const iso = (ms: number | undefined) => (ms === undefined ? null : new Date(ms).toISOString());

export function keyView(key: ApiKeyRecord) {
  return {
    id: key.id,
    name: key.name,
    prefix: key.prefix,
    scopes: key.scopes,
    createdAt: new Date(key.createdAt).toISOString(),
    lastUsedAt: iso(key.lastUsedAt),
    revokedAt: iso(key.revokedAt),
  };
}

export async function keysRoute(app: FastifyInstance, options: { accounts: AccountService }) {
  const { accounts } = options;
  app.get(
    '/1.0/keys',
    {
      config: { auth: true },
      schema: {
        operationId: 'listKeys',
        tags: ['Keys'],
        summary: "List the account's API keys (revoked ones too)",
        response: { 200: Type.Object({ keys: Type.Array(KeySchema) }), ...commonErrors },
      },
    },
    async (request) => ({
      keys: (await accounts.listKeys(requireAccount(request.account).id)).map(keyView),
    }),
  );

  app.post(
    '/1.0/keys',
    {
      config: { auth: 'session', role: 'owner' },
      schema: {
        operationId: 'createKey',
        tags: ['Keys'],
        summary: 'Create an API key (owner, dashboard session); its secret is in this answer only',
        body: CreateKeySchema,
        response: {
          201: Type.Object({
            ...KeySchema.properties,
            key: Type.String({ description: 'The secret: shown this once, stored only as a hash.' }),
          }),
          ...commonErrors,
        },
      },
    },
    async (request, reply) => {
      const account = requireAccount(request.account);
      const body = request.body as { name: string; scopes?: KeyScope[] };
      const scopes = body.scopes ?? ['jobs'];
      const created = await accounts.createKey(account.id, { name: body.name, scopes });
      return reply.code(201).send({ ...keyView(created.record), key: created.key });
    },
  );

  app.delete(
    '/1.0/keys/:id',
    {
      config: { auth: true },
      schema: {
        operationId: 'revokeKey',
        tags: ['Keys'],
        summary: 'Revoke an API key (a key may revoke itself; other keys need an owner’s dashboard session)',
        params: Type.Object({ id: Type.String({ maxLength: 100 }) }),
        response: { 204: Type.Null(), 404: ErrorSchema, ...commonErrors },
      },
    },
    async (request, reply) => {
      const account = requireAccount(request.account);
      const { id } = request.params as { id: string };
      // A key of another account, or none: the same answer, so key ids do not leak.
      if (!(await accounts.listKeys(account.id)).some((k) => k.id === id))
        throw new NotFoundError('No key with this id.');
      // A key may revoke itself (whoever holds a leaked key can kill it); other keys only an owner's session.
      if (request.authMethod === 'key' && request.apiKeyId !== id)
        throw new ForbiddenError(
          'An API key can revoke only itself; sign in to the dashboard to revoke others.',
        );
      if (request.authMethod === 'session') checkRole(requireUser(request.user).role, 'owner');
      await accounts.revokeKey(id, account.id);
      return reply.code(204).send();
    },
  );
}
