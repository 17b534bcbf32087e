import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { test } from 'node:test';
import { describeConfig } from '../../src/config/index.ts';

const readme = readFileSync(new URL('../../README.md', import.meta.url), 'utf8');

test('the README configuration table lists every variable with its default', () => {
  for (const variable of describeConfig()) {
    const row = readme.split('\n').find((line) => line.startsWith(`| \`${variable.name}\` |`));
    assert.ok(row, `README is missing ${variable.name}`);
    assert.ok(
      row.includes(`\`${variable.default}\``),
      `README shows a wrong default for ${variable.name}: ${row}`,
    );
  }
});

test('the README quick start has the start and test commands that exist', () => {
  assert.match(readme, /\.\/bin\/presso serve/);
  assert.match(readme, /npm test/);
  const pkg = JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8'));
  assert.equal(pkg.scripts.test, 'bash scripts/test.sh');
});
