/** The budget: the dashboard's first load is under 200 KB of JavaScript, compressed (gzip and brotli). */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { FIRST_LOAD_JS_BUDGET, measureFirstLoad } from '../../bench/dashboard/first-load.ts';
import { ensureDashboardBuilt } from './build.ts';

test('the first load of the dashboard stays under 200 KB of compressed JavaScript', () => {
  const load = measureFirstLoad(ensureDashboardBuilt());
  assert.ok(
    load.scripts.length > 0 && load.scripts.every((s) => s.startsWith('assets/')),
    load.scripts.join(),
  );
  assert.ok(load.js.raw > 10_000, 'the measure found the application script');
  assert.ok(load.js.gzip < FIRST_LOAD_JS_BUDGET, `gzip ${load.js.gzip} bytes`);
  assert.ok(load.js.brotli < FIRST_LOAD_JS_BUDGET, `brotli ${load.js.brotli} bytes`);
});
