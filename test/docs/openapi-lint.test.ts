import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { resolve } from 'node:path';
import { test } from 'node:test';
import { promisify } from 'node:util';

const root = resolve(import.meta.dirname, '..', '..');

test('docs/openapi.json lints with no error and no warning (redocly, recommended rules)', async () => {
  const { stdout, stderr } = await promisify(execFile)(
    process.execPath,
    [resolve(root, 'node_modules/@redocly/cli/bin/cli.js'), 'lint', 'docs/openapi.json', '--format=summary'],
    { cwd: root, env: { ...process.env, REDOCLY_TELEMETRY: 'off', REDOCLY_SUPPRESS_UPDATE_NOTICE: 'true' } },
  ).catch((error: { stdout: string; stderr: string }) => error);
  const output = stdout + stderr;
  assert.match(output, /Your API description is valid/, output);
  assert.doesNotMatch(output, /warning/i, output);
});

test('every operation has an operationId, a tag, and 4xx and 5xx responses', async () => {
  const { default: doc } = await import('../../docs/openapi.json', { with: { type: 'json' } });
  const operations = Object.entries(doc.paths as Record<string, Record<string, unknown>>).flatMap(
    ([path, ops]) =>
      Object.entries(ops).map(([method, op]) => ({ path, method, op: op as Record<string, unknown> })),
  );
  assert.ok(operations.length > 30);
  for (const { path, method, op } of operations) {
    const where = `${method.toUpperCase()} ${path}`;
    assert.equal(typeof op.operationId, 'string', `${where} has an operationId`);
    assert.ok((op.tags as string[]).length > 0, `${where} has a tag`);
    const codes = Object.keys(op.responses as object);
    assert.ok(
      codes.some((c) => c.startsWith('4')),
      `${where} documents a 4xx`,
    );
    assert.ok(
      codes.some((c) => c.startsWith('5')),
      `${where} documents a 5xx`,
    );
    assert.ok(codes.includes('429'), `${where} documents 429 (every route is rate limited)`);
  }
});
