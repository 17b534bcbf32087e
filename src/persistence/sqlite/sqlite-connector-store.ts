/** Store connectors in the embedded database (table `connectors`); credentials arrive and leave encrypted. */
import type { ConnectorRecord, ConnectorStore } from '../../connectors/connector-store.ts';
import type { StoreKind } from '../../stores/external-store.ts';
import { all, type Database, get, run } from './database.ts';

interface ConnectorRow {
  id: string;
  account_id: string;
  kind: StoreKind;
  name: string;
  hint: string;
  secret: string;
  created_at: number;
}

const fromRow = (row: ConnectorRow): ConnectorRecord => ({
  id: row.id,
  accountId: row.account_id,
  kind: row.kind,
  name: row.name,
  hint: row.hint,
  secret: row.secret,
  createdAt: row.created_at,
});

export class SqliteConnectorStore implements ConnectorStore {
  readonly #db: Database;

  constructor(db: Database) {
    this.#db = db;
  }

  async create(c: ConnectorRecord): Promise<void> {
    run(
      this.#db,
      'INSERT INTO connectors (id, account_id, kind, name, hint, secret, created_at) VALUES (?, ?, ?, ?, ?, ?, ?)',
      c.id,
      c.accountId,
      c.kind,
      c.name,
      c.hint,
      c.secret,
      c.createdAt,
    );
  }

  async get(accountId: string, id: string): Promise<ConnectorRecord | undefined> {
    const row = get<ConnectorRow>(
      this.#db,
      'SELECT * FROM connectors WHERE id = ? AND account_id = ?',
      id,
      accountId,
    );
    return row === undefined ? undefined : fromRow(row);
  }

  async list(accountId: string): Promise<ConnectorRecord[]> {
    return all<ConnectorRow>(
      this.#db,
      'SELECT * FROM connectors WHERE account_id = ? ORDER BY created_at, id',
      accountId,
    ).map(fromRow);
  }

  async remove(accountId: string, id: string): Promise<boolean> {
    return run(this.#db, 'DELETE FROM connectors WHERE id = ? AND account_id = ?', id, accountId).changes > 0;
  }
}
