/**
 * Dashboard users, their invites and their sessions. Passwords are stored as argon2id hashes, invite
 * tokens and session ids as SHA-256 hashes (they are 256 random bits: nothing to brute-force), so a copy
 * of the database lets nobody sign in.
 */

export const USER_ROLES = ['owner', 'member', 'operator'] as const;
/** owner: everything in the account; member: reads only; operator: every account and the fleet. */
export type UserRole = (typeof USER_ROLES)[number];

/** Who a session request is made by (`request.user`). */
export interface DashboardUser {
  id: string;
  accountId: string;
  /** Lower-cased; unique across the service (sign-in asks for the email alone). */
  email: string;
  role: UserRole;
}

export interface UserRecord extends DashboardUser {
  passwordHash: string;
  createdAt: number;
  lastSignInAt: number | undefined;
}

export interface InviteRecord {
  /** SHA-256 of the token; the token itself is shown once, in the link. */
  tokenHash: string;
  accountId: string;
  email: string;
  role: UserRole;
  createdAt: number;
  expiresAt: number;
}

export interface UserStore {
  /** Throws when the email is taken (a unique constraint: two concurrent creations cannot both win). */
  createUser(user: UserRecord): Promise<void>;
  getUser(id: string): Promise<UserRecord | undefined>;
  findByEmail(email: string): Promise<UserRecord | undefined>;
  /** Oldest first. */
  listUsers(accountId: string): Promise<UserRecord[]>;
  /** False when there is no such user. */
  setRole(id: string, role: UserRole): Promise<boolean>;
  deleteUser(id: string): Promise<boolean>;
  recordSignIn(id: string, at: number): Promise<void>;
  createInvite(invite: InviteRecord): Promise<void>;
  /** The invite, while it is unused and `now` is before its expiry. */
  findInvite(tokenHash: string, now: number): Promise<InviteRecord | undefined>;
  /**
   * Uses the invite and creates its user together: false (and no user) when the invite is unknown, used or
   * expired, so of two concurrent acceptances exactly one creates a user. Throws as createUser does.
   */
  acceptInvite(tokenHash: string, user: UserRecord, now: number): Promise<boolean>;
}

export interface SessionRecord {
  /** SHA-256 of the cookie's value. */
  idHash: string;
  userId: string;
  createdAt: number;
  /** Updated at most once a minute: the idle expiry counts from here. */
  lastSeenAt: number;
  /** The absolute expiry, fixed at sign-in. */
  expiresAt: number;
}

export interface SessionStore {
  createSession(session: SessionRecord): Promise<void>;
  findSession(idHash: string): Promise<SessionRecord | undefined>;
  touchSession(idHash: string, at: number): Promise<void>;
  deleteSession(idHash: string): Promise<void>;
  /** Every session of the user (sign out everywhere); returns how many there were. */
  deleteUserSessions(userId: string): Promise<number>;
  /** Sessions idle since before `idleBefore` or past their absolute expiry at `now`; returns the count. */
  deleteExpired(idleBefore: number, now: number): Promise<number>;
}
