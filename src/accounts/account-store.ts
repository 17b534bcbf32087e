/** Accounts, their API keys and usage counters. Keys are stored as SHA-256 hashes only. */

export interface Account {
  id: string;
  name: string;
  rateLimit: number;
  webhookSecret: string;
  createdAt: number;
}

export interface ApiKeyRecord {
  id: string;
  accountId: string;
  /** The first characters of the key, to recognise it in lists; never enough to use it. */
  prefix: string;
  createdAt: number;
  revokedAt: number | undefined;
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
  /** The account owning the active (unrevoked) key with this hash. */
  findByKeyHash(hash: string): Promise<{ account: Account; keyId: string } | undefined>;
  addUsage(accountId: string, delta: Partial<Usage>): Promise<void>;
  getUsage(accountId: string): Promise<Usage>;
}
