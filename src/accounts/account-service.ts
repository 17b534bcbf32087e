/**
 * Accounts and API keys. A key is shown once, at creation; only its SHA-256 is stored. Keys are 256
 * random bits, so a fast hash is enough: there is nothing to brute-force as there is with passwords.
 */
import { createHash, randomBytes, randomUUID } from 'node:crypto';
import { NotFoundError } from '../errors/catalog.ts';
import { generateWebhookSecret } from '../webhooks/signature.ts';
import {
  type Account,
  type AccountStore,
  type ApiKeyRecord,
  type DailyUsage,
  type DailyUsageDelta,
  KEY_SCOPES,
  type KeyOwner,
  type KeyScope,
} from './account-store.ts';

const KEY_PREFIX = 'psk_';
const KEY_PATTERN = /^psk_[A-Za-z0-9_-]{43}$/;

export interface NewKey {
  id: string;
  key: string;
  /** The stored record (without the secret). */
  record: ApiKeyRecord;
}

/** `lastUsedAt` is written at most this often per key: a minute is precise enough for "last used". */
export const KEY_TOUCH_INTERVAL_MS = 60_000;

/** The UTC day of a time, as the daily usage counters name it (YYYY-MM-DD). */
export function usageDate(ms: number): string {
  return new Date(ms).toISOString().slice(0, 10);
}

export function hashApiKey(key: string): string {
  return createHash('sha256').update(key).digest('hex');
}

/** What may be shown of a webhook secret after its creation: its prefix and last four characters. */
export function webhookSecretHint(secret: string): string {
  return `whsec_…${secret.slice(-4)}`;
}

export function isWellFormedKey(key: string): boolean {
  return KEY_PATTERN.test(key);
}

export class AccountService {
  readonly #store: AccountStore;
  readonly #defaultRateLimit: number;
  readonly #now: () => number;

  /** `now`: the clock of rotations and disabling (tests move it). */
  constructor(store: AccountStore, options: { defaultRateLimit: number; now?: () => number }) {
    this.#store = store;
    this.#defaultRateLimit = options.defaultRateLimit;
    this.#now = options.now ?? Date.now;
  }

  async createAccount(name: string, rateLimit?: number): Promise<{ account: Account; key: NewKey }> {
    const account: Account = {
      id: randomUUID(),
      name,
      rateLimit: rateLimit ?? this.#defaultRateLimit,
      webhookSecret: generateWebhookSecret(),
      createdAt: Date.now(),
    };
    const { record, hash, key } = newKey(account.id, 'first key', KEY_SCOPES);
    await this.#store.createAccount(account, { key: record, hash });
    return { account, key: { id: record.id, key, record } };
  }

  /** Keys made by the operator's CLI have every scope; the dashboard chooses (`jobs` alone by default). */
  async createKey(
    accountId: string,
    options: { name?: string; scopes?: readonly KeyScope[] } = {},
  ): Promise<NewKey> {
    if (!(await this.#store.getAccount(accountId))) throw new NotFoundError(`No account ${accountId}.`);
    const { record, hash, key } = newKey(accountId, options.name ?? '', options.scopes ?? KEY_SCOPES);
    await this.#store.addKey(record, hash);
    return { id: record.id, key, record };
  }

  /** Revokes a key (of that account only, when `accountId` is given: another account's key is "not found"). */
  async revokeKey(keyId: string, accountId?: string): Promise<void> {
    if (!(await this.#store.revokeKey(keyId, Date.now(), accountId)))
      throw new NotFoundError(`No key ${keyId}.`);
  }

  /**
   * The account of an active key, or undefined for unknown and revoked keys. Notes the key's use when its
   * `lastUsedAt` is a minute old or more: the read is needed anyway, so a busy key costs one write a minute.
   */
  async authenticate(key: string): Promise<KeyOwner | undefined> {
    if (!isWellFormedKey(key)) return undefined;
    const found = await this.#store.findByKeyHash(hashApiKey(key));
    if (found === undefined) return undefined;
    const now = Date.now();
    if (found.lastUsedAt === undefined || now - found.lastUsedAt >= KEY_TOUCH_INTERVAL_MS) {
      // A stamp that cannot be written (a full disk) must not refuse the request.
      await this.#store.touchKey(found.keyId, now, now - KEY_TOUCH_INTERVAL_MS).catch(() => {});
    }
    return found;
  }

  listAccounts(): Promise<Account[]> {
    return this.#store.listAccounts();
  }

  listKeys(accountId: string): Promise<ApiKeyRecord[]> {
    return this.#store.listKeys(accountId);
  }

  getAccount(id: string): Promise<Account | undefined> {
    return this.#store.getAccount(id);
  }

  /** Operator changes: the rate limit, and disabling (refuses the account's keys and sessions) or enabling. */
  async updateAccount(id: string, changes: { rateLimit?: number; disabled?: boolean }): Promise<Account> {
    const disabledAt = changes.disabled === undefined ? undefined : changes.disabled ? this.#now() : null;
    const found = await this.#store.updateAccount(id, {
      ...(changes.rateLimit === undefined ? {} : { rateLimit: changes.rateLimit }),
      ...(disabledAt === undefined ? {} : { disabledAt }),
    });
    const account = found ? await this.#store.getAccount(id) : undefined;
    if (!account) throw new NotFoundError(`No account ${id}.`);
    return account;
  }

  /**
   * A new webhook secret, returned once. The previous one keeps signing deliveries (next to the new one)
   * for `graceMs`, so receivers can switch without losing any.
   */
  async rotateWebhookSecret(
    id: string,
    graceMs: number,
  ): Promise<{ secret: string; previousValidUntil: number; rotatedAt: number }> {
    const secret = generateWebhookSecret();
    const rotatedAt = this.#now();
    const previousValidUntil = rotatedAt + graceMs;
    if (!(await this.#store.rotateWebhookSecret(id, secret, previousValidUntil, rotatedAt)))
      throw new NotFoundError(`No account ${id}.`);
    return { secret, previousValidUntil, rotatedAt };
  }

  /** The secrets deliveries are signed with now: the current one, and the previous one during its grace. */
  async signingSecrets(accountId: string): Promise<string[] | undefined> {
    const account = await this.#store.getAccount(accountId);
    if (!account) return undefined;
    const { webhookSecret, previousWebhookSecret, previousSecretValidUntil } = account;
    const inGrace =
      previousWebhookSecret !== undefined &&
      previousSecretValidUntil !== undefined &&
      this.#now() < previousSecretValidUntil;
    return inGrace ? [webhookSecret, previousWebhookSecret] : [webhookSecret];
  }

  getUsage(accountId: string) {
    return this.#store.getUsage(accountId);
  }

  addUsage(accountId: string, delta: Parameters<AccountStore['addUsage']>[1]): Promise<void> {
    return this.#store.addUsage(accountId, delta);
  }

  /** Adds to the account's counters of the UTC day of `at`, for `kind` (a file kind, or `http` for requests). */
  addDailyUsage(accountId: string, at: number, kind: string, delta: DailyUsageDelta): Promise<void> {
    return this.#store.addDailyUsage(accountId, usageDate(at), kind, delta);
  }

  /** One answered request: the account's total and today's `http` counter. */
  async countRequest(accountId: string, at: number = Date.now()): Promise<void> {
    await this.#store.addUsage(accountId, { requests: 1 });
    await this.addDailyUsage(accountId, at, 'http', { requests: 1 });
  }

  /** The last `days` UTC days' counters (today included), oldest first. */
  listDailyUsage(accountId: string, days: number, now: number = Date.now()): Promise<DailyUsage[]> {
    return this.#store.listDailyUsage(accountId, usageDate(now - (days - 1) * 86_400_000));
  }
}

/** A fresh API key: the secret shown once, and the record and hash that are stored. */
function newKey(
  accountId: string,
  name: string,
  scopes: readonly KeyScope[],
): { key: string; record: ApiKeyRecord; hash: string } {
  const key = KEY_PREFIX + randomBytes(32).toString('base64url');
  const record: ApiKeyRecord = {
    id: `key_${randomBytes(9).toString('base64url')}`,
    accountId,
    name,
    prefix: key.slice(0, 10),
    // In the catalogue's order, each once, whatever order the caller gave.
    scopes: KEY_SCOPES.filter((scope) => scopes.includes(scope)),
    createdAt: Date.now(),
    revokedAt: undefined,
    lastUsedAt: undefined,
  };
  return { key, record, hash: hashApiKey(key) };
}
