/**
 * Dashboard users of an account: created from the command line or through a one-time invite link
 * (72 hours, stored hashed), listed, given another role, removed. An account keeps at least one owner.
 */
import { createHash, randomBytes, randomUUID } from 'node:crypto';
import type { AccountService } from '../accounts/account-service.ts';
import type { Account } from '../accounts/account-store.ts';
import { ConflictError, NotFoundError, ValidationError } from '../errors/catalog.ts';
import { checkPassword, hashPassword } from './passwords.ts';
import type { SessionStore, UserRecord, UserRole, UserStore } from './user-store.ts';

export const INVITE_TTL_MS = 72 * 3_600_000;
const EMAIL_MAX_LENGTH = 254;
const TOKEN_PATTERN = /^[A-Za-z0-9_-]{43}$/;

export function hashToken(token: string): string {
  return createHash('sha256').update(token).digest('hex');
}

/** Lower-cased and trimmed; one `@` with text on both sides, no spaces: the mail server decides the rest. */
export function normaliseEmail(email: string): string {
  const value = email.trim().toLowerCase();
  const at = value.indexOf('@');
  const valid =
    value.length <= EMAIL_MAX_LENGTH &&
    at > 0 &&
    at === value.lastIndexOf('@') &&
    at < value.length - 1 &&
    !/\s/.test(value);
  if (!valid) throw ValidationError.field('email', 'must be an email address');
  return value;
}

export interface NewInvite {
  token: string;
  url: string;
  expiresAt: number;
}

export class UserService {
  readonly #store: UserStore;
  readonly #sessions: SessionStore;
  readonly #accounts: AccountService;
  readonly #publicUrl: string;
  readonly #now: () => number;

  constructor(
    deps: { store: UserStore; sessions: SessionStore; accounts: AccountService },
    options: { publicUrl: string; now?: () => number },
  ) {
    this.#store = deps.store;
    this.#sessions = deps.sessions;
    this.#accounts = deps.accounts;
    this.#publicUrl = options.publicUrl;
    this.#now = options.now ?? Date.now;
  }

  async createUser(accountId: string, email: string, role: UserRole, password: string): Promise<UserRecord> {
    const address = normaliseEmail(email);
    checkPassword(password);
    await this.#requireAccount(accountId);
    await this.#requireFreeEmail(address);
    const user = await this.#newUser(accountId, address, role, password);
    await this.#store.createUser(user).catch(async (error: unknown) => {
      await this.#requireFreeEmail(address);
      throw error;
    });
    return user;
  }

  /** Refuses, before anything is made, what createUser would refuse for these (not the account). */
  async checkNewUser(email: string, password: string | undefined): Promise<void> {
    if (password !== undefined) checkPassword(password);
    await this.#requireFreeEmail(normaliseEmail(email));
  }

  /** The link's token is shown once; only its hash is stored. */
  async invite(accountId: string, email: string, role: UserRole): Promise<NewInvite> {
    const address = normaliseEmail(email);
    await this.#requireAccount(accountId);
    await this.#requireFreeEmail(address);
    const token = randomBytes(32).toString('base64url');
    const createdAt = this.#now();
    const expiresAt = createdAt + INVITE_TTL_MS;
    await this.#store.createInvite({
      tokenHash: hashToken(token),
      accountId,
      email: address,
      role,
      createdAt,
      expiresAt,
    });
    return { token, url: `${this.#publicUrl}/dashboard/#/invite/${token}`, expiresAt };
  }

  /** What the invite page shows before a password is chosen. */
  async describeInvite(token: string): Promise<{ email: string; accountName: string; role: UserRole }> {
    const invite = TOKEN_PATTERN.test(token)
      ? await this.#store.findInvite(hashToken(token), this.#now())
      : undefined;
    const account = invite && (await this.#accounts.getAccount(invite.accountId));
    if (!invite || !account) throw new NotFoundError('This invite link is unknown, used or expired.');
    return { email: invite.email, accountName: account.name, role: invite.role };
  }

  async acceptInvite(token: string, password: string): Promise<UserRecord> {
    checkPassword(password);
    const invite = TOKEN_PATTERN.test(token)
      ? await this.#store.findInvite(hashToken(token), this.#now())
      : undefined;
    if (!invite) throw new NotFoundError('This invite link is unknown, used or expired.');
    await this.#requireFreeEmail(invite.email);
    const user = await this.#newUser(invite.accountId, invite.email, invite.role, password);
    if (!(await this.#store.acceptInvite(invite.tokenHash, user, this.#now())))
      throw new NotFoundError('This invite link is unknown, used or expired.');
    return user;
  }

  async accountOf(user: UserRecord): Promise<Account> {
    const account = await this.#accounts.getAccount(user.accountId);
    if (!account) throw new NotFoundError(`No account ${user.accountId}.`);
    return account;
  }

  listUsers(accountId: string): Promise<UserRecord[]> {
    return this.#store.listUsers(accountId);
  }

  getUser(id: string): Promise<UserRecord | undefined> {
    return this.#store.getUser(id);
  }

  /** Another account's user is 404, as an unknown one: ids do not leak across accounts. */
  async setRole(accountId: string, userId: string, role: UserRole): Promise<UserRecord> {
    const user = await this.#userOf(accountId, userId);
    if (user.role === 'owner' && role !== 'owner') await this.#keepAnOwner(user);
    await this.#store.setRole(user.id, role);
    // Sessions carry no role: the next request reads the new one.
    return { ...user, role };
  }

  async deleteUser(accountId: string, userId: string): Promise<void> {
    const user = await this.#userOf(accountId, userId);
    if (user.role === 'owner') await this.#keepAnOwner(user);
    await this.#sessions.deleteUserSessions(user.id);
    await this.#store.deleteUser(user.id);
  }

  async #userOf(accountId: string, userId: string): Promise<UserRecord> {
    const user = await this.#store.getUser(userId);
    if (!user || user.accountId !== accountId) throw new NotFoundError(`No user ${userId}.`);
    return user;
  }

  async #keepAnOwner(user: UserRecord): Promise<void> {
    const owners = (await this.#store.listUsers(user.accountId)).filter((u) => u.role === 'owner');
    if (owners.length <= 1) throw new ConflictError('An account keeps at least one owner.');
  }

  async #requireAccount(accountId: string): Promise<void> {
    if (!(await this.#accounts.getAccount(accountId))) throw new NotFoundError(`No account ${accountId}.`);
  }

  async #requireFreeEmail(email: string): Promise<void> {
    if (await this.#store.findByEmail(email)) throw new ConflictError('This email already has a user.');
  }

  async #newUser(accountId: string, email: string, role: UserRole, password: string): Promise<UserRecord> {
    return {
      id: `usr_${randomUUID()}`,
      accountId,
      email,
      role,
      passwordHash: await hashPassword(password),
      createdAt: this.#now(),
      lastSignInAt: undefined,
    };
  }
}
