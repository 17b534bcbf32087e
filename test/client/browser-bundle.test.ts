/**
 * The browser and edge entry has no Node-only import: esbuild bundles it for the browser platform (where
 * any `node:` or Node built-in import fails the build), and the bundle's inputs are the package's own built
 * files (the `browser` condition of its exports resolves to dist/index.js, what an installed package ships).
 */
import assert from 'node:assert/strict';
import { resolve } from 'node:path';
import { test } from 'node:test';
import { build } from 'esbuild';

const root = resolve(import.meta.dirname, '..', '..');

test('@presso/client bundles for the browser with no Node built-in, and exposes the client', async () => {
  const result = await build({
    stdin: {
      contents: "export { PressoClient, verifyWebhook, signWebhook, PressoApiError } from '@presso/client';",
      resolveDir: root,
      loader: 'ts',
    },
    bundle: true,
    platform: 'browser',
    format: 'esm',
    target: 'es2022',
    write: false,
    metafile: true,
    logLevel: 'silent',
  });
  assert.deepEqual(result.errors, []);
  const inputs = Object.keys(result.metafile.inputs).filter((input) => input !== '<stdin>');
  assert.ok(
    inputs.every((input) => input.startsWith('packages/client/dist/')),
    inputs.join(', '),
  );
  assert.ok(!inputs.includes('packages/client/dist/node.js'));
  const code = result.outputFiles[0]!.text;
  assert.doesNotMatch(code, /from\s*["']node:|require\(["'](node:|fs|path|crypto|stream)/);
  assert.match(code, /PressoClient = class/);
  // The bundle runs: a module made of it exports a working verifier (WebCrypto only).
  const module = await import(`data:text/javascript;base64,${Buffer.from(code).toString('base64')}`);
  const secret = `whsec_${Buffer.from('k'.repeat(32)).toString('base64')}`;
  const signature = await module.signWebhook(secret, 'm', 1, '{}');
  assert.deepEqual(
    await module.verifyWebhook(
      '{}',
      { 'webhook-id': 'm', 'webhook-timestamp': '1', 'webhook-signature': signature },
      secret,
      { nowSeconds: 1 },
    ),
    {},
  );
});

test('a Node-only import on the browser path would fail that build', async () => {
  const failed = await build({
    stdin: {
      contents: "import { readFile } from 'node:fs/promises'; export { readFile };",
      resolveDir: root,
    },
    bundle: true,
    platform: 'browser',
    write: false,
    logLevel: 'silent',
  }).then(
    () => false,
    () => true,
  );
  assert.equal(failed, true);
});

test('src/generated/openapi.ts is current with docs/openapi.json', async () => {
  const { readFile } = await import('node:fs/promises');
  const { generateFromDocs, generatedPath } = await import('../../packages/client/scripts/generate-types.ts');
  assert.equal(
    await readFile(generatedPath, 'utf8'),
    generateFromDocs(),
    'run: node packages/client/scripts/generate-types.ts',
  );
});
