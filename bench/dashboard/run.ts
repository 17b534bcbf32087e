/**
 * `npm run bench:dashboard`: builds the dashboard if needed (scripts/setup.sh does) and prints what its first
 * load weighs against the 200 KB compressed JavaScript budget; writes bench/results/dashboard-first-load.json.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { DEFAULT_DASHBOARD_DIR } from '../../src/http/app.ts';
import { FIRST_LOAD_JS_BUDGET, measureFirstLoad } from './first-load.ts';

const load = measureFirstLoad(DEFAULT_DASHBOARD_DIR);
const kb = (bytes: number) => `${(bytes / 1000).toFixed(1)} KB`;
console.log('dashboard first load   raw        gzip -9    brotli 11');
for (const [name, s] of [
  ['JavaScript', load.js],
  ['CSS', load.css],
  ['index.html', load.html],
] as const) {
  console.log(`${name.padEnd(22)} ${kb(s.raw).padEnd(10)} ${kb(s.gzip).padEnd(10)} ${kb(s.brotli)}`);
}
const within = load.js.gzip < FIRST_LOAD_JS_BUDGET && load.js.brotli < FIRST_LOAD_JS_BUDGET;
console.log(
  `budget: JavaScript under ${kb(FIRST_LOAD_JS_BUDGET)} compressed: ${within ? 'met' : 'EXCEEDED'}`,
);
const results = resolve(import.meta.dirname, '..', 'results');
mkdirSync(results, { recursive: true });
const out = join(results, 'dashboard-first-load.json');
writeFileSync(
  out,
  `${JSON.stringify({ measuredAt: new Date().toISOString(), budgetBytes: FIRST_LOAD_JS_BUDGET, ...load }, null, 2)}\n`,
);
console.log(`wrote ${out}`);
if (!within) process.exitCode = 1;
