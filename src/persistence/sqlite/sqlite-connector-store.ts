/** Store connectors in the embedded database (table `connectors`); credentials arrive and leave encrypted. */
import type { ConnectorRecord, ConnectorStore } from '../../connectors/connector-store.ts';
import { type ConnectorRow, toConnector } from '../rows.ts';
import { all, type Database, get, run } from './database.ts';

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
    return row === undefined ? undefined : toConnector(row);
  }

  async list(accountId: string): Promise<ConnectorRecord[]> {
    return all<ConnectorRow>(
      this.#db,
      'SELECT * FROM connectors WHERE account_id = ? ORDER BY created_at, id',
      accountId,
    ).map(toConnector);
  }

  async remove(accountId: string, id: string): Promise<boolean> {
    return run(this.#db, 'DELETE FROM connectors WHERE id = ? AND account_id = ?', id, accountId).changes > 0;
  }
}
