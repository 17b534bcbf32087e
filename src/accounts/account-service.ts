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
  KEY_SCOPES,
  type KeyScope,
} from './account-store.ts';

const KEY_PREFIX = 'psk_';
const KEY_PATTERN = /^psk_[A-Za-z0-9_-]{43}$/;

export interface NewKey {
  id: string;
  key: string;
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
    const { record, hash, key } = newKey(account.id, [...KEY_SCOPES]);
    await this.#store.createAccount(account, { key: record, hash });
    return { account, key: { id: record.id, key } };
  }

  /** Every scope by default: what keys from the command line always had. */
  async createKey(accountId: string, scopes: KeyScope[] = [...KEY_SCOPES]): Promise<NewKey> {
    if (!(await this.#store.getAccount(accountId))) throw new NotFoundError(`No account ${accountId}.`);
    const { record, hash, key } = newKey(accountId, scopes);
    await this.#store.addKey(record, hash);
    return { id: record.id, key };
  }

  async revokeKey(keyId: string): Promise<void> {
    if (!(await this.#store.revokeKey(keyId, Date.now()))) throw new NotFoundError(`No key ${keyId}.`);
  }

  /** The account of an active key and the key's scopes, or undefined for unknown and revoked keys. */
  async authenticate(
    key: string,
  ): Promise<{ account: Account; keyId: string; scopes: KeyScope[] } | undefined> {
    if (!isWellFormedKey(key)) return undefined;
    return this.#store.findByKeyHash(hashApiKey(key));
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
}

/** A fresh API key: the secret shown once, and the record and hash that are stored. */
function newKey(accountId: string, scopes: KeyScope[]): { key: string; record: ApiKeyRecord; hash: string } {
  const key = KEY_PREFIX + randomBytes(32).toString('base64url');
  const record: ApiKeyRecord = {
    id: `key_${randomBytes(9).toString('base64url')}`,
    accountId,
    prefix: key.slice(0, 10),
    createdAt: Date.now(),
    revokedAt: undefined,
    scopes,
  };
  return { key, record, hash: hashApiKey(key) };
}
