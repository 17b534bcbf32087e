import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { availableParallelism } from 'node:os';
import { test } from 'node:test';
import { describeConfig, loadConfig } from '../../src/runtime/config.ts';

const readme = readFileSync(new URL('../../README.md', import.meta.url), 'utf8');

test('the README configuration table is exactly the declared variables, defaults and meanings', () => {
  const rows = readme.split('\n').filter((line) => line.startsWith('| `PRESSO_'));
  const declared = describeConfig().map((v) => `| \`${v.name}\` | \`${v.default}\` | ${v.description} |`);
  assert.deepEqual(rows, declared, 'regenerate the table from `presso config` (README, Configuration)');
});

// The README once said `2` for the worker count, so the table test passed only on a 2-CPU machine.
test('a machine-dependent default is documented by what it depends on, and still applied', () => {
  const workers = describeConfig().find((v) => v.name === 'PRESSO_WORKERS');
  assert.equal(workers?.default, '(CPU count)');
  assert.equal(loadConfig({}).jobs.workers, availableParallelism());
  assert.equal(loadConfig({ PRESSO_WORKERS: '3' }).jobs.workers, 3);
});

test('the README quick start has the start and test commands that exist', () => {
  assert.match(readme, /\.\/bin\/presso serve/);
  assert.match(readme, /npm test/);
  const pkg = JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8'));
  assert.equal(pkg.scripts.test, 'bash scripts/test.sh');
});
