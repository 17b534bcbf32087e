/** What the hooks attach to a request for the routes after them. */

import type { Account, KeyScope } from '../accounts/account-store.ts';
import type { DashboardUser } from '../users/user-store.ts';
import type { CspReportLog } from './csp-reports.ts';

declare module 'fastify' {
  interface FastifyInstance {
    /** The dashboard's CSP violations reported to this process (routes/csp-reports.ts). */
    cspReports: CspReportLog;
  }
  interface FastifyRequest {
    account: Account | undefined;
    /** The id of the API key that authenticated the request (uploads in progress are counted per key). */
    apiKeyId: string | undefined;
    /** The scopes of that key. */
    apiKeyScopes: KeyScope[] | undefined;
    /** The dashboard user of a session request. */
    user: DashboardUser | undefined;
    /** How the request was authenticated: an API key, or a dashboard session cookie. */
    authMethod: 'key' | 'session' | undefined;
  }
  interface FastifyContextConfig {
    /**
     * `true`: an API key or a dashboard session (every /1.0 route but the OpenAPI document and sign-in);
     * `'session'`: a dashboard session only (a key is 401).
     */
    auth?: boolean | 'session';
    /**
     * The least role a session's user needs (403 below it): `owner` (owners and operators) or `operator`.
     * Keys are not users and have no role: their scopes decide instead.
     */
    role?: 'owner' | 'operator';
    /** The scope an API key needs (default `jobs`). */
    scope?: KeyScope;
  }
}

export function requireAccount(account: Account | undefined): Account {
  if (!account) throw new Error('route reached without authentication');
  return account;
}

export function requireUser(user: DashboardUser | undefined): DashboardUser {
  if (!user) throw new Error('route reached without a session');
  return user;
}
