/**
 * The account's dashboard users and invites. Reading the list needs a session; changing it needs an owner
 * (or an operator), and only an operator grants or takes away the operator role. An invite is a one-time
 * link (72 hours); opening and accepting it need no session, and accepting signs the new user in.
 * Another account's user ids are 404, as unknown ones.
 */
import type { FastifyInstance } from 'fastify';
import { Type } from '#typebox';
import { ForbiddenError, NotFoundError } from '../../errors/catalog.ts';
import type { SessionService } from '../../users/session-service.ts';
import type { UserService } from '../../users/user-service.ts';
import { USER_ROLES, type UserRecord, type UserRole } from '../../users/user-store.ts';
import { checkOrigin } from '../plugins/session-auth.ts';
import { requireAccount, requireUser } from '../request-context.ts';
import { commonErrors, ErrorSchema } from '../schemas.ts';
import { SessionSchema, sendSignedIn } from './session.ts';

const RoleSchema = Type.Union(USER_ROLES.map((r) => Type.Literal(r)));

const UserSchema = Type.Object(
  {
    id: Type.String(),
    email: Type.String(),
    role: RoleSchema,
    createdAt: Type.String({ format: 'date-time' }),
    lastSignInAt: Type.Union([Type.String({ format: 'date-time' }), Type.Null()]),
  },
  { title: 'DashboardUser' },
);

const InviteSchema = Type.Object({
  token: Type.String({ description: 'Shown once; only its hash is stored.' }),
  url: Type.String({ description: 'The link to send to the invited person.' }),
  expiresAt: Type.String({ format: 'date-time' }),
});

const TokenParams = Type.Object({ token: Type.String({ maxLength: 64 }) });
const PasswordBody = Type.Object(
  { password: Type.String({ minLength: 1, maxLength: 1024 }) },
  { additionalProperties: false },
);

const TAGS = ['Users'];

const toUser = (u: UserRecord) => ({
  id: u.id,
  email: u.email,
  role: u.role,
  createdAt: new Date(u.createdAt).toISOString(),
  lastSignInAt: u.lastSignInAt === undefined ? null : new Date(u.lastSignInAt).toISOString(),
});

/** Owners manage owners and members; the operator role is an operator's to give. */
function checkGrant(actor: UserRole, granted: UserRole): void {
  if (granted === 'operator' && actor !== 'operator')
    throw new ForbiddenError('Only an operator may give the operator role.');
}

export async function usersRoute(
  app: FastifyInstance,
  options: { users: UserService; sessions: SessionService; origin: string },
) {
  const { users, sessions, origin } = options;

  app.get(
    '/1.0/users',
    {
      config: { auth: 'session' },
      schema: {
        operationId: 'listUsers',
        tags: TAGS,
        summary: "List the account's dashboard users",
        response: { 200: Type.Object({ users: Type.Array(UserSchema) }), ...commonErrors },
      },
    },
    async (request) => ({
      users: (await users.listUsers(requireAccount(request.account).id)).map(toUser),
    }),
  );

  app.patch(
    '/1.0/users/:id',
    {
      config: { auth: 'session', role: 'owner' },
      schema: {
        operationId: 'updateUser',
        tags: TAGS,
        summary: "Change a user's role",
        params: Type.Object({ id: Type.String({ maxLength: 64 }) }),
        body: Type.Object({ role: RoleSchema }, { additionalProperties: false }),
        response: { 200: UserSchema, 404: ErrorSchema, 409: ErrorSchema, ...commonErrors },
      },
    },
    async (request) => {
      const actor = requireUser(request.user);
      const { id } = request.params as { id: string };
      const { role } = request.body as { role: UserRole };
      const target = await users.getUser(id);
      if (!target || target.accountId !== requireAccount(request.account).id)
        throw new NotFoundError(`No user ${id}.`);
      checkGrant(actor.role, role);
      checkGrant(actor.role, target.role);
      return toUser(await users.setRole(target.accountId, id, role));
    },
  );

  app.delete(
    '/1.0/users/:id',
    {
      config: { auth: 'session', role: 'owner' },
      schema: {
        operationId: 'deleteUser',
        tags: TAGS,
        summary: 'Remove a user (and end their sessions)',
        params: Type.Object({ id: Type.String({ maxLength: 64 }) }),
        response: { 204: Type.Null(), 404: ErrorSchema, 409: ErrorSchema, ...commonErrors },
      },
    },
    async (request, reply) => {
      const actor = requireUser(request.user);
      const { id } = request.params as { id: string };
      const target = await users.getUser(id);
      if (!target || target.accountId !== requireAccount(request.account).id)
        throw new NotFoundError(`No user ${id}.`);
      checkGrant(actor.role, target.role);
      await users.deleteUser(target.accountId, id);
      return reply.code(204).send();
    },
  );

  app.post(
    '/1.0/invites',
    {
      config: { auth: 'session', role: 'owner' },
      schema: {
        operationId: 'createInvite',
        tags: TAGS,
        summary: 'Invite a user by a one-time link (valid 72 hours)',
        description: 'An operator may invite into another account by passing `accountId`.',
        body: Type.Object(
          {
            email: Type.String({ minLength: 3, maxLength: 254 }),
            role: RoleSchema,
            accountId: Type.Optional(Type.String({ maxLength: 64 })),
          },
          { additionalProperties: false },
        ),
        response: { 201: InviteSchema, 404: ErrorSchema, 409: ErrorSchema, ...commonErrors },
      },
    },
    async (request, reply) => {
      const actor = requireUser(request.user);
      const body = request.body as { email: string; role: UserRole; accountId?: string };
      if (body.accountId !== undefined && body.accountId !== actor.accountId && actor.role !== 'operator')
        throw new NotFoundError(`No account ${body.accountId}.`);
      checkGrant(actor.role, body.role);
      const invite = await users.invite(body.accountId ?? actor.accountId, body.email, body.role);
      return reply
        .code(201)
        .send({ token: invite.token, url: invite.url, expiresAt: new Date(invite.expiresAt).toISOString() });
    },
  );

  app.get(
    '/1.0/invites/:token',
    {
      schema: {
        operationId: 'getInvite',
        tags: TAGS,
        summary: 'What an invite link is for (no session needed)',
        security: [],
        params: TokenParams,
        response: {
          200: Type.Object({ email: Type.String(), accountName: Type.String(), role: RoleSchema }),
          404: ErrorSchema,
          ...commonErrors,
        },
      },
    },
    async (request) => users.describeInvite((request.params as { token: string }).token),
  );

  app.post(
    '/1.0/invites/:token/accept',
    {
      schema: {
        operationId: 'acceptInvite',
        tags: TAGS,
        summary: 'Accept an invite: choose a password and sign in (sets the session cookie)',
        security: [],
        params: TokenParams,
        body: PasswordBody,
        response: { 200: SessionSchema, 404: ErrorSchema, 409: ErrorSchema, ...commonErrors },
      },
    },
    async (request, reply) => {
      checkOrigin(request, origin);
      const { token } = request.params as { token: string };
      const user = await users.acceptInvite(token, (request.body as { password: string }).password);
      const account = await users.accountOf(user);
      return sendSignedIn(reply, await sessions.start(user, account));
    },
  );
}
