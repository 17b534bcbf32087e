/**
 * Dashboard sessions: sign-in (rate-limited per client address and per email, one answer for every
 * failure), the session a cookie names (idle and absolute expiry), sign-out and sign-out everywhere.
 *
 * The cookie holds 256 random bits; the store keeps their SHA-256 only. A new id is made at every sign-in
 * and the session of any cookie sent with the sign-in is ended, so a cookie planted before sign-in is never
 * the one after (session fixation). The CSRF token is derived from the session id: only a holder of the
 * cookie can know it, and nothing more is stored.
 */
import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';
import type { AccountService } from '../accounts/account-service.ts';
import type { Account } from '../accounts/account-store.ts';
import { AccountDisabledError, RateLimitedError, UnauthorizedError } from '../errors/catalog.ts';
import type { RateLimiter } from '../ratelimit/rate-limiter.ts';
import type { SessionsConfig } from './config.ts';
import { verifyPassword } from './passwords.ts';
import { hashToken } from './user-service.ts';
import type { DashboardUser, SessionStore, UserRecord, UserStore } from './user-store.ts';

const SESSION_ID_PATTERN = /^[A-Za-z0-9_-]{43}$/;
/** Last use is written at most this often: the idle expiry is as precise as that, and reads stay reads. */
const TOUCH_INTERVAL_MS = 60_000;
export const SIGN_IN_FAILED = 'The email or password is incorrect.';

export interface SessionContext {
  user: DashboardUser;
  account: Account;
  csrfToken: string;
  /** The hash of the session's id (what the store knows it by). */
  sessionHash: string;
}

export interface SignedIn extends SessionContext {
  /** The cookie's value: shown to the browser once, never stored. */
  sessionId: string;
  maxAgeSeconds: number;
}

export function csrfTokenFor(sessionId: string): string {
  return createHash('sha256').update(`presso-csrf:${sessionId}`).digest('base64url');
}

export function sameToken(given: string, expected: string): boolean {
  const a = Buffer.from(given);
  const b = Buffer.from(expected);
  return a.length === b.length && timingSafeEqual(a, b);
}

const publicUser = (u: UserRecord): DashboardUser => ({
  id: u.id,
  accountId: u.accountId,
  email: u.email,
  role: u.role,
});

export class SessionService {
  readonly #users: UserStore;
  readonly #sessions: SessionStore;
  readonly #accounts: AccountService;
  readonly #limiter: RateLimiter;
  readonly #config: SessionsConfig;
  readonly #now: () => number;

  constructor(
    deps: { users: UserStore; sessions: SessionStore; accounts: AccountService; limiter: RateLimiter },
    config: SessionsConfig,
    now: () => number = Date.now,
  ) {
    this.#users = deps.users;
    this.#sessions = deps.sessions;
    this.#accounts = deps.accounts;
    this.#limiter = deps.limiter;
    this.#config = config;
    this.#now = now;
  }

  /**
   * Every attempt counts against both limits, successful ones too: counting failures alone would let
   * parallel guesses all pass the check before any failure is counted.
   */
  async signIn(email: string, password: string, address: string, previousId?: string): Promise<SignedIn> {
    const normalised = email.trim().toLowerCase();
    const perAddress = await this.#limiter.consume(
      `signin-ip:${address}`,
      this.#config.signInLimitPerAddress,
    );
    const perEmail = await this.#limiter.consume(
      `signin-email:${normalised}`,
      this.#config.signInLimitPerEmail,
    );
    for (const state of [perAddress, perEmail])
      if (!state.allowed) throw new RateLimitedError(state.resetSeconds);
    const user = await this.#users.findByEmail(normalised);
    if (!(await verifyPassword(user?.passwordHash, password)) || !user)
      throw new UnauthorizedError(SIGN_IN_FAILED);
    const account = await this.#accounts.getAccount(user.accountId);
    if (!account) throw new UnauthorizedError(SIGN_IN_FAILED);
    if (account.disabledAt !== undefined) throw new AccountDisabledError();
    if (previousId !== undefined) await this.signOut(previousId);
    await this.#users.recordSignIn(user.id, this.#now());
    return this.start(user, account);
  }

  /** A new session for a user whose identity is established (a sign-in, an accepted invite). */
  async start(user: UserRecord, account: Account): Promise<SignedIn> {
    const now = this.#now();
    // Housekeeping where sessions are made, so the table holds live sessions and recent leftovers only.
    await this.#sessions.deleteExpired(now - this.#config.idleMs, now);
    const sessionId = randomBytes(32).toString('base64url');
    const sessionHash = hashToken(sessionId);
    await this.#sessions.createSession({
      idHash: sessionHash,
      userId: user.id,
      createdAt: now,
      lastSeenAt: now,
      expiresAt: now + this.#config.maxAgeMs,
    });
    return {
      sessionId,
      sessionHash,
      user: publicUser(user),
      account,
      csrfToken: csrfTokenFor(sessionId),
      maxAgeSeconds: Math.floor(this.#config.maxAgeMs / 1000),
    };
  }

  /** The live session a cookie names, or undefined (unknown, idle too long, past its absolute expiry). */
  async authenticate(sessionId: string): Promise<SessionContext | undefined> {
    if (!SESSION_ID_PATTERN.test(sessionId)) return undefined;
    const sessionHash = hashToken(sessionId);
    const session = await this.#sessions.findSession(sessionHash);
    if (!session) return undefined;
    const now = this.#now();
    if (now - session.lastSeenAt > this.#config.idleMs || now >= session.expiresAt) {
      await this.#sessions.deleteSession(sessionHash);
      return undefined;
    }
    const user = await this.#users.getUser(session.userId);
    const account = user && (await this.#accounts.getAccount(user.accountId));
    if (!user || !account) return undefined;
    if (now - session.lastSeenAt >= TOUCH_INTERVAL_MS) await this.#sessions.touchSession(sessionHash, now);
    return { user: publicUser(user), account, csrfToken: csrfTokenFor(sessionId), sessionHash };
  }

  async signOut(sessionId: string): Promise<void> {
    if (SESSION_ID_PATTERN.test(sessionId)) await this.#sessions.deleteSession(hashToken(sessionId));
  }

  signOutEverywhere(userId: string): Promise<number> {
    return this.#sessions.deleteUserSessions(userId);
  }
}
