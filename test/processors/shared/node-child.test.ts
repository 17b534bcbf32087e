/**
 * A Node child of ours gets this process's compile cache only when the sandbox binds it read-only, that is
 * when it lies inside one of the child's program folders (node-child.ts).
 */
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { enableCompileCache, getCompileCacheDir } from 'node:module';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { after, test } from 'node:test';
import { nodeChildEnvironment } from '../../../src/processors/shared/node-child.ts';

const scratch = mkdtempSync(join(tmpdir(), 'presso-node-child-'));
after(() => rmSync(scratch, { recursive: true, force: true }));

test('the compile cache is handed over inside the program files only', () => {
  // The test runner may have enabled one already (NODE_COMPILE_CACHE): then that one is this process's.
  enableCompileCache(join(scratch, 'node_modules', '.cache', 'node-compile'));
  const versioned = getCompileCacheDir();
  assert.ok(versioned !== undefined, 'a compile cache is enabled');
  const cache = dirname(versioned);
  const modules = dirname(dirname(cache));
  assert.deepEqual(nodeChildEnvironment(['/usr/share/doc', modules]), { NODE_COMPILE_CACHE: cache });
  assert.deepEqual(nodeChildEnvironment([cache]), { NODE_COMPILE_CACHE: cache });
  // A sibling whose name only starts the same, and a folder inside the cache, do not hold it.
  assert.deepEqual(nodeChildEnvironment([`${modules}2`, join(cache, 'inner')]), {});
  assert.deepEqual(nodeChildEnvironment([]), {});
});
