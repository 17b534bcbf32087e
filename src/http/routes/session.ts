/**
 * Dashboard sign-in and sign-out: POST /1.0/session (email and password; sets the session cookie),
 * GET /1.0/session (who is signed in, and the CSRF token), DELETE /1.0/session (sign out) and
 * DELETE /1.0/sessions (sign out every session of the user). The invite routes (users.ts) end in a sign-in too.
 */
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { Type } from '#typebox';
import type { SessionService, SignedIn } from '../../users/session-service.ts';
import { csrfTokenFor } from '../../users/session-service.ts';
import { USER_ROLES } from '../../users/user-store.ts';
import { checkOrigin } from '../plugins/session-auth.ts';
import { requireAccount, requireUser } from '../request-context.ts';
import { commonErrors, ErrorSchema } from '../schemas.ts';
import { clearedSessionCookie, readSessionCookie, sessionCookie } from '../session-cookie.ts';

export const SessionSchema = Type.Object(
  {
    user: Type.Object({
      id: Type.String(),
      email: Type.String(),
      role: Type.Union(USER_ROLES.map((r) => Type.Literal(r))),
    }),
    account: Type.Object({ id: Type.String(), name: Type.String() }),
    csrfToken: Type.String({
      description: 'Send as the X-CSRF-Token header with every state-changing request of this session.',
    }),
  },
  { title: 'Session' },
);

const SignInSchema = Type.Object(
  {
    email: Type.String({ minLength: 1, maxLength: 254 }),
    password: Type.String({ minLength: 1, maxLength: 1024 }),
  },
  { additionalProperties: false },
);

const TAGS = ['Sessions'];

/** Sets the cookie of a new session and answers its body (sign-in, accepted invite). */
export function sendSignedIn(reply: FastifyReply, signedIn: SignedIn) {
  reply.header('set-cookie', sessionCookie(signedIn.sessionId, signedIn.maxAgeSeconds));
  reply.header('cache-control', 'no-store');
  return {
    user: { id: signedIn.user.id, email: signedIn.user.email, role: signedIn.user.role },
    account: { id: signedIn.account.id, name: signedIn.account.name },
    csrfToken: signedIn.csrfToken,
  };
}

export async function sessionRoute(
  app: FastifyInstance,
  options: { sessions: SessionService; origin: string },
) {
  const { sessions, origin } = options;
  const signedOut = (reply: FastifyReply) =>
    reply.header('set-cookie', clearedSessionCookie()).code(204).send();
  const cookieOf = (request: FastifyRequest) => readSessionCookie(request.headers.cookie);

  app.post(
    '/1.0/session',
    {
      schema: {
        operationId: 'signIn',
        tags: TAGS,
        summary: 'Sign in to the dashboard (sets the presso_session cookie)',
        description:
          'Rate-limited per client address and per email (PRESSO_SIGNIN_ADDRESS_LIMIT, PRESSO_SIGNIN_LIMIT). ' +
          'An unknown email and a wrong password get the same 401.',
        security: [],
        body: SignInSchema,
        response: { 200: SessionSchema, ...commonErrors },
      },
    },
    async (request, reply) => {
      // Login CSRF: another site's form must not sign the browser in to an account of the attacker's.
      checkOrigin(request, origin);
      const { email, password } = request.body as { email: string; password: string };
      return sendSignedIn(reply, await sessions.signIn(email, password, request.ip, cookieOf(request)));
    },
  );

  app.get(
    '/1.0/session',
    {
      config: { auth: 'session' },
      schema: {
        operationId: 'getSession',
        tags: TAGS,
        summary: 'The signed-in user, the account and the CSRF token',
        response: { 200: SessionSchema, ...commonErrors },
      },
    },
    async (request, reply) => {
      const user = requireUser(request.user);
      const account = requireAccount(request.account);
      reply.header('cache-control', 'no-store');
      return {
        user: { id: user.id, email: user.email, role: user.role },
        account: { id: account.id, name: account.name },
        csrfToken: csrfTokenFor(cookieOf(request) ?? ''),
      };
    },
  );

  app.delete(
    '/1.0/session',
    {
      config: { auth: 'session' },
      schema: {
        operationId: 'signOut',
        tags: TAGS,
        summary: 'Sign out (ends this session)',
        response: { 204: Type.Null(), ...commonErrors },
      },
    },
    async (request, reply) => {
      await sessions.signOut(cookieOf(request) ?? '');
      return signedOut(reply);
    },
  );

  app.delete(
    '/1.0/sessions',
    {
      config: { auth: 'session' },
      schema: {
        operationId: 'signOutEverywhere',
        tags: TAGS,
        summary: 'Sign out everywhere (ends every session of the signed-in user)',
        response: { 204: Type.Null(), 404: ErrorSchema, ...commonErrors },
      },
    },
    async (request, reply) => {
      await sessions.signOutEverywhere(requireUser(request.user).id);
      return signedOut(reply);
    },
  );
}
