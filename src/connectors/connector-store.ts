/**
 * Where connectors live: one account's store credentials, kept encrypted (the store never sees them in
 * clear). Embedded: a table in SQLite; scaled: PostgreSQL. Reads are always scoped to the owning account.
 */
import type { StoreKind } from '../stores/catalog.ts';

export interface ConnectorRecord {
  id: string;
  accountId: string;
  kind: StoreKind;
  name: string;
  /** A masked hint of the credentials (`AKIA…WXYZ`), safe to show. */
  hint: string;
  /** The credentials, encrypted by credential-cipher.ts. */
  secret: string;
  createdAt: number;
}

export interface ConnectorStore {
  create(record: ConnectorRecord): Promise<void>;
  /** The connector if it belongs to `accountId`; another account's connector is not found. */
  get(accountId: string, id: string): Promise<ConnectorRecord | undefined>;
  list(accountId: string): Promise<ConnectorRecord[]>;
  /** True when the account's connector existed and is gone. */
  remove(accountId: string, id: string): Promise<boolean>;
}
