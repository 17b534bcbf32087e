/**
 * The account's store connectors: POST /1.0/connectors creates one (after a probe write to the bucket),
 * GET lists them (masked hints, never the credentials), DELETE removes one, POST .../test probes again.
 * An account sees and uses only its own connectors: another account's id is 404. Changing and testing them
 * needs a key with the `connectors` scope; in the dashboard, creating and deleting needs the owner role.
 */
import type { FastifyInstance } from 'fastify';
import { Type } from '#typebox';
import type { ConnectorService, NewConnector } from '../../connectors/connector-service.ts';
import { STORE_KINDS } from '../../stores/catalog.ts';
import { requireAccount } from '../request-context.ts';
import { commonErrors, ErrorSchema } from '../schemas.ts';

const ConnectorSchema = Type.Object({
  id: Type.String({ description: 'Use as `store.id` in upload and fetch requests.' }),
  kind: Type.Union(STORE_KINDS.map((k) => Type.Literal(k))),
  name: Type.String(),
  hint: Type.String({ description: 'A masked hint of the credentials (they are never returned).' }),
  createdAt: Type.String({ format: 'date-time' }),
});

const Probe = {
  bucket: Type.String({
    minLength: 1,
    maxLength: 255,
    description: 'Bucket (Azure: container) the probe object is written to and deleted from.',
  }),
  region: Type.Optional(
    Type.String({ minLength: 1, maxLength: 64, description: 'Region of the bucket (S3, B2, Spaces).' }),
  ),
};

const CreateSchema = Type.Object(
  {
    kind: Type.Union(STORE_KINDS.map((k) => Type.Literal(k))),
    name: Type.Optional(Type.String({ minLength: 1, maxLength: 200 })),
    credentials: Type.Record(Type.String(), Type.Unknown(), {
      description:
        's3: accessKeyId, secretAccessKey[, endpoint]; r2: accountId, accessKeyId, secretAccessKey; b2: keyId, ' +
        'applicationKey; spaces: key, secret; gcs: serviceAccount (the key file JSON); azure: accountName + ' +
        'accountKey, or connectionString, or accountName + sasToken. Encrypted at rest, never returned.',
    }),
    ...Probe,
  },
  { additionalProperties: false },
);

export async function connectorsRoute(app: FastifyInstance, options: { connectors: ConnectorService }) {
  const { connectors } = options;
  app.post(
    '/1.0/connectors',
    {
      config: { auth: true, scope: 'connectors', role: 'owner' },
      schema: {
        operationId: 'createConnector',
        tags: ['Connectors'],
        summary: 'Create a store connector (checked by writing and deleting a probe object)',
        body: CreateSchema,
        response: { 201: ConnectorSchema, ...commonErrors },
      },
    },
    async (request, reply) => {
      const account = requireAccount(request.account);
      return reply.code(201).send(await connectors.create(account.id, request.body as NewConnector));
    },
  );

  app.get(
    '/1.0/connectors',
    {
      config: { auth: true },
      schema: {
        operationId: 'listConnectors',
        tags: ['Connectors'],
        summary: "List the account's store connectors",
        response: { 200: Type.Object({ connectors: Type.Array(ConnectorSchema) }), ...commonErrors },
      },
    },
    async (request) => ({ connectors: await connectors.list(requireAccount(request.account).id) }),
  );

  app.delete(
    '/1.0/connectors/:id',
    {
      config: { auth: true, scope: 'connectors', role: 'owner' },
      schema: {
        operationId: 'deleteConnector',
        tags: ['Connectors'],
        summary: 'Delete a store connector',
        params: Type.Object({ id: Type.String() }),
        response: { 204: Type.Null(), 404: ErrorSchema, ...commonErrors },
      },
    },
    async (request, reply) => {
      await connectors.remove(requireAccount(request.account).id, (request.params as { id: string }).id);
      return reply.code(204).send();
    },
  );

  app.post(
    '/1.0/connectors/:id/test',
    {
      config: { auth: true, scope: 'connectors' },
      schema: {
        operationId: 'testConnector',
        tags: ['Connectors'],
        summary: 'Check a stored connector by writing and deleting a probe object',
        params: Type.Object({ id: Type.String() }),
        body: Type.Object(Probe, { additionalProperties: false }),
        response: { 200: Type.Object({ ok: Type.Literal(true) }), 404: ErrorSchema, ...commonErrors },
      },
    },
    async (request) => {
      const { bucket, region } = request.body as { bucket: string; region?: string };
      await connectors.test(
        requireAccount(request.account).id,
        (request.params as { id: string }).id,
        bucket,
        region,
      );
      return { ok: true as const };
    },
  );
}
