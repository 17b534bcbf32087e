import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { test } from 'node:test';
import { generateOpenApi } from '../../src/cli/serve-command.ts';
import { loadConfig } from '../../src/runtime/config.ts';

test('docs/openapi.json is the document generated from the route schemas (run `npm run openapi`)', async () => {
  const generated = await generateOpenApi(loadConfig({}));
  const committed = JSON.parse(readFileSync(new URL('../../docs/openapi.json', import.meta.url), 'utf8'));
  assert.deepEqual(committed, JSON.parse(JSON.stringify(generated)));
  const doc = generated as { openapi: string; paths: Record<string, unknown> };
  assert.equal(doc.openapi, '3.1.0');
  for (const path of ['/1.0/upload', '/1.0/fetch', '/1.0/jobs/{id}', '/1.0/account', '/1.0/webhooks']) {
    assert.ok(doc.paths[path], `${path} is documented`);
  }
});
