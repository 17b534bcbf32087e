/**
 * Accounts and API keys. A key is shown once, at creation; only its SHA-256 is stored. Keys are 256
 * random bits, so a fast hash is enough: there is nothing to brute-force as there is with passwords.
 */
import { createHash, randomBytes, randomUUID } from 'node:crypto';
import { NotFoundError } from '../errors/catalog.ts';
import { generateWebhookSecret } from '../webhooks/signature.ts';
import type { Account, AccountStore, ApiKeyRecord } from './account-store.ts';

const KEY_PREFIX = 'psk_';
const KEY_PATTERN = /^psk_[A-Za-z0-9_-]{43}$/;

export interface NewKey {
  id: string;
  key: string;
}

export function hashApiKey(key: string): string {
  return createHash('sha256').update(key).digest('hex');
}

export function isWellFormedKey(key: string): boolean {
  return KEY_PATTERN.test(key);
}

export class AccountService {
  readonly #store: AccountStore;
  readonly #defaultRateLimit: number;

  constructor(store: AccountStore, options: { defaultRateLimit: number }) {
    this.#store = store;
    this.#defaultRateLimit = options.defaultRateLimit;
  }

  async createAccount(name: string, rateLimit?: number): Promise<{ account: Account; key: NewKey }> {
    const account: Account = {
      id: randomUUID(),
      name,
      rateLimit: rateLimit ?? this.#defaultRateLimit,
      webhookSecret: generateWebhookSecret(),
      createdAt: Date.now(),
    };
    const { record, hash, key } = newKey(account.id);
    await this.#store.createAccount(account, { key: record, hash });
    return { account, key: { id: record.id, key } };
  }

  async createKey(accountId: string): Promise<NewKey> {
    if (!(await this.#store.getAccount(accountId))) throw new NotFoundError(`No account ${accountId}.`);
    const { record, hash, key } = newKey(accountId);
    await this.#store.addKey(record, hash);
    return { id: record.id, key };
  }

  async revokeKey(keyId: string): Promise<void> {
    if (!(await this.#store.revokeKey(keyId, Date.now()))) throw new NotFoundError(`No key ${keyId}.`);
  }

  /** The account of an active key, or undefined for unknown and revoked keys. */
  async authenticate(key: string): Promise<{ account: Account; keyId: string } | undefined> {
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

  getUsage(accountId: string) {
    return this.#store.getUsage(accountId);
  }

  addUsage(accountId: string, delta: Parameters<AccountStore['addUsage']>[1]): Promise<void> {
    return this.#store.addUsage(accountId, delta);
  }
}

/** A fresh API key: the secret shown once, and the record and hash that are stored. */
function newKey(accountId: string): { key: string; record: ApiKeyRecord; hash: string } {
  const key = KEY_PREFIX + randomBytes(32).toString('base64url');
  const record: ApiKeyRecord = {
    id: `key_${randomBytes(9).toString('base64url')}`,
    accountId,
    prefix: key.slice(0, 10),
    createdAt: Date.now(),
    revokedAt: undefined,
  };
  return { key, record, hash: hashApiKey(key) };
}
