/** Behaviour every ConnectorStore must have: records round-trip, and reads are scoped to the owning account. */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { ConnectorRecord, ConnectorStore } from '../../src/connectors/connector-store.ts';

export function connectorStoreContract(
  name: string,
  make: () => Promise<{ store: ConnectorStore; accounts: [string, string] }>,
): void {
  describe(`ConnectorStore contract: ${name}`, () => {
    const record = (id: string, accountId: string, createdAt: number): ConnectorRecord => ({
      id,
      accountId,
      kind: 's3',
      name: `connector ${id}`,
      hint: 'AKIA…WXYZ',
      secret: 'v1.sealed',
      createdAt,
    });

    it('keeps records per account, lists them oldest first, and never shows one to another account', async () => {
      const {
        store,
        accounts: [a, b],
      } = await make();
      await store.create(record('c2', a, 2));
      await store.create(record('c1', a, 1));
      await store.create(record('c3', b, 3));
      assert.deepEqual(
        (await store.list(a)).map((c) => c.id),
        ['c1', 'c2'],
      );
      assert.deepEqual(await store.get(a, 'c1'), record('c1', a, 1));
      assert.equal(await store.get(b, 'c1'), undefined);
      assert.equal(await store.remove(b, 'c1'), false);
      assert.equal(await store.remove(a, 'c1'), true);
      assert.equal(await store.get(a, 'c1'), undefined);
      assert.deepEqual(
        (await store.list(b)).map((c) => c.id),
        ['c3'],
      );
    });
  });
}
