/** Store connectors in PostgreSQL (table `connectors`): the twin of sqlite-connector-store.ts. */
import type pg from 'pg';
import type { ConnectorRecord, ConnectorStore } from '../../connectors/connector-store.ts';
import { type ConnectorRow, toConnector } from '../rows.ts';
import { execute, query } from './database.ts';

export class PgConnectorStore implements ConnectorStore {
  readonly #db: pg.Pool;

  constructor(db: pg.Pool) {
    this.#db = db;
  }

  async create(c: ConnectorRecord): Promise<void> {
    await execute(
      this.#db,
      'INSERT INTO connectors (id, account_id, kind, name, hint, secret, created_at) VALUES ($1, $2, $3, $4, $5, $6, $7)',
      [c.id, c.accountId, c.kind, c.name, c.hint, c.secret, c.createdAt],
    );
  }

  async get(accountId: string, id: string): Promise<ConnectorRecord | undefined> {
    const [row] = await query<ConnectorRow>(
      this.#db,
      'SELECT * FROM connectors WHERE id = $1 AND account_id = $2',
      [id, accountId],
    );
    return row === undefined ? undefined : toConnector(row);
  }

  async list(accountId: string): Promise<ConnectorRecord[]> {
    const rows = await query<ConnectorRow>(
      this.#db,
      'SELECT * FROM connectors WHERE account_id = $1 ORDER BY created_at, id',
      [accountId],
    );
    return rows.map(toConnector);
  }

  async remove(accountId: string, id: string): Promise<boolean> {
    return (
      (await execute(this.#db, 'DELETE FROM connectors WHERE id = $1 AND account_id = $2', [id, accountId])) >
      0
    );
  }
}
