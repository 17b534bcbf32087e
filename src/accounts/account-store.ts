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

/** What a key may do: `jobs` (uploads, fetches, jobs, account, webhooks), `connectors` (create, test, delete). */
export const KEY_SCOPES = ['jobs', 'connectors'] as const;
export type KeyScope = (typeof KEY_SCOPES)[number];

export interface ApiKeyRecord {
  id: string;
  accountId: string;
  /** The first characters of the key, to recognise it in lists; never enough to use it. */
  prefix: string;
  createdAt: number;
  revokedAt: number | undefined;
  /** Default (and for keys made before scopes existed): every scope. */
  scopes?: KeyScope[];
}

export interface Usage {
  requests: number;
  jobs: number;
  bytesIn: number;
  bytesOut: number;
}

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
  /** Returns false when there is no such key. */
  revokeKey(keyId: string, at: number): Promise<boolean>;
  /** The account owning the active (unrevoked) key with this hash, and the key's scopes. */
  findByKeyHash(hash: string): Promise<{ account: Account; keyId: string; scopes: KeyScope[] } | undefined>;
  /** Operator changes; `disabledAt: null` enables the account again. False when there is no such account. */
  updateAccount(id: string, changes: { rateLimit?: number; disabledAt?: number | null }): Promise<boolean>;
  /** The current secret becomes the previous one (valid until `previousValidUntil`) and `secret` the current. */
  rotateWebhookSecret(id: string, secret: string, previousValidUntil: number, at: number): Promise<boolean>;
  addUsage(accountId: string, delta: Partial<Usage>): Promise<void>;
  getUsage(accountId: string): Promise<Usage>;
}
