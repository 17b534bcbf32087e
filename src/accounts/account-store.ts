/** Accounts, their API keys and usage counters. Keys are stored as SHA-256 hashes only. */

export interface Account {
  id: string;
  name: string;
  rateLimit: number;
  webhookSecret: string;
  createdAt: number;
  /** Set by an operator: the account's keys and sessions are refused from then on. */
  disabledAt?: number;
  /** The secret before the last rotation, which still signs deliveries until `previousSecretValidUntil`. */
  previousWebhookSecret?: string;
  previousSecretValidUntil?: number;
  webhookSecretRotatedAt?: number;
}

/**
 * What a key may do: `jobs` (upload, fetch, jobs, account, webhooks) and `connectors` (create, test, delete
 * connectors). The access control enforces them; keys made before scopes existed have both.
 */
export const KEY_SCOPES = ['jobs', 'connectors'] as const;
export type KeyScope = (typeof KEY_SCOPES)[number];

export interface ApiKeyRecord {
  id: string;
  accountId: string;
  /** The owner's label for the key ('' for keys made before keys had names). */
  name: string;
  /** The first characters of the key, to recognise it in lists; never enough to use it. */
  prefix: string;
  scopes: KeyScope[];
  createdAt: number;
  revokedAt: number | undefined;
  /** When the key last authenticated a request, to the minute (see `touchKey`). */
  lastUsedAt: number | undefined;
}

/** An active key as authentication finds it. */
export interface KeyOwner {
  account: Account;
  keyId: string;
  scopes: KeyScope[];
  lastUsedAt: number | undefined;
}

export interface Usage {
  requests: number;
  jobs: number;
  bytesIn: number;
  bytesOut: number;
}

/** One account's counters for one UTC day and one kind of file (`http` for requests). */
export interface DailyUsage extends Usage {
  /** YYYY-MM-DD, UTC. */
  date: string;
  kind: string;
  failures: number;
}

export type DailyUsageDelta = Partial<Omit<DailyUsage, 'date' | 'kind'>>;

export interface AccountStore {
  /**
   * Creates the account, its usage counters and its first key together: either all exist afterwards or
   * none does, so a failure never leaves an account nobody can authenticate as.
   */
  createAccount(account: Account, firstKey: { key: ApiKeyRecord; hash: string }): Promise<void>;
  getAccount(id: string): Promise<Account | undefined>;
  listAccounts(): Promise<Account[]>;
  addKey(key: ApiKeyRecord, hash: string): Promise<void>;
  listKeys(accountId: string): Promise<ApiKeyRecord[]>;
  /** Returns false when there is no such key (of that account, when `accountId` is given). */
  revokeKey(keyId: string, at: number, accountId?: string): Promise<boolean>;
  /** The account owning the active (unrevoked) key with this hash. */
  findByKeyHash(hash: string): Promise<KeyOwner | undefined>;
  /** Sets the key's `lastUsedAt` to `at` unless it was set after `unlessAfter` (one write a minute, not one a request). */
  touchKey(keyId: string, at: number, unlessAfter: number): Promise<void>;
  /** Operator changes; `disabledAt: null` enables the account again. False when there is no such account. */
  updateAccount(id: string, changes: { rateLimit?: number; disabledAt?: number | null }): Promise<boolean>;
  /** The current secret becomes the previous one (valid until `previousValidUntil`) and `secret` the current. */
  rotateWebhookSecret(id: string, secret: string, previousValidUntil: number, at: number): Promise<boolean>;
  addUsage(accountId: string, delta: Partial<Usage>): Promise<void>;
  getUsage(accountId: string): Promise<Usage>;
  /** Adds to the account's counters of `date` (YYYY-MM-DD) and `kind`, creating them at zero first. */
  addDailyUsage(accountId: string, date: string, kind: string, delta: DailyUsageDelta): Promise<void>;
  /** The account's daily counters from `fromDate` (YYYY-MM-DD, inclusive), oldest day first, then by kind. */
  listDailyUsage(accountId: string, fromDate: string): Promise<DailyUsage[]>;
}
