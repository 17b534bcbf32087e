/** What the hooks attach to a request for the routes after them. */
import type { Account } from '../accounts/account-store.ts';
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
  }
  interface FastifyContextConfig {
    /** The route needs an API key (every /1.0 route but the OpenAPI document). */
    auth?: boolean;
  }
}

export function requireAccount(account: Account | undefined): Account {
  if (!account) throw new Error('route reached without authentication');
  return account;
}
