/**
 * A new kind gets its contract suite for free, and cannot skip it: every processor of the catalog runs the
 * processor contract on its module (test/processors/<kind>/contract.test.ts), and every store kind runs the
 * store contract (checked where it runs: test/stores/stores.test.ts).
 */
import assert from 'node:assert/strict';
import { existsSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { test } from 'node:test';
import { PROCESSORS } from '../../src/processors/catalog.ts';

const root = resolve(import.meta.dirname, '../..');

test('every processor kind of the catalog runs the processor contract on its module', () => {
  const missing = PROCESSORS.map((module) => module.kind).filter((kind) => {
    const file = join(root, 'test/processors', kind, 'contract.test.ts');
    return (
      !existsSync(file) ||
      !/processorContract\(\s*\w+Module,/.test(readFileSync(file, 'utf8')) ||
      !readFileSync(file, 'utf8').includes(`${kind}Module`)
    );
  });
  assert.deepEqual(missing, []);
});
