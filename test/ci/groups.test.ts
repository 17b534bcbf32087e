/** The fast tier's groups (test/run/groups.ts): every file in exactly one group, the groups' past times even. */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { groupFiles, groupName } from '../run/groups.ts';

test('files go longest first to the lightest group; each once, in name order within a group', () => {
  const past = { a: 9000, b: 5000, c: 4000, d: 3000, e: 1000 };
  const groups = groupFiles(['e', 'd', 'c', 'b', 'a', 'new'], 2, past);
  // a to the first; b, c to the second; d to the first (a tie goes to the first); e, then new (1 s) to the second.
  assert.deepEqual(groups, [
    ['a', 'd'],
    ['b', 'c', 'e', 'new'],
  ]);
  const sums = groups.map((g) => g.reduce((sum, f) => sum + (past[f as keyof typeof past] ?? 1000), 0));
  assert.deepEqual(sums, [12_000, 11_000]);
});

test('no more groups than files, and names that say which of how many', () => {
  assert.deepEqual(groupFiles(['x'], 3, {}), [['x']]);
  assert.equal(groupName(0, 3), 'fast group 1 of 3');
});
