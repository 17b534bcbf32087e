/**
 * The deployment examples match the code: every PRESSO_* variable they set is one the service declares,
 * every role they start is one `serve --role` takes, and each example loads as a valid configuration.
 */
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { describeConfig, loadConfig } from '../../src/runtime/config.ts';
import { ROLES } from '../../src/runtime/scaled-config.ts';

const deploy = new URL('../../deploy/', import.meta.url).pathname;
const files = [
  join(deploy, 'compose.yaml'),
  ...readdirSync(join(deploy, 'kubernetes')).map((f) => join(deploy, 'kubernetes', f)),
];

test('deployment examples set only declared variables and start only real roles', () => {
  const declared = new Set(describeConfig().map((v) => v.name));
  for (const file of files) {
    const text = readFileSync(file, 'utf8');
    for (const [, name] of text.matchAll(/\b(PRESSO_[A-Z0-9_]+)\b/g))
      assert.ok(declared.has(name!), `${file}: ${name}`);
    for (const [, role] of text.matchAll(/"--role", "([a-z]+)"/g))
      assert.ok((ROLES as readonly string[]).includes(role!), `${file}: ${role}`);
  }
});

test('the Kubernetes and compose settings load as a scaled configuration for each role', () => {
  const settings = (file: string) =>
    Object.fromEntries(
      [...readFileSync(file, 'utf8').matchAll(/^\s+(PRESSO_[A-Z0-9_]+): "?([^"\n]*)"?$/gm)].map(
        ([, k, v]) => [k, v],
      ),
    );
  const kubernetes = {
    ...settings(join(deploy, 'kubernetes/config.yaml')),
    ...settings(join(deploy, 'kubernetes/secret.example.yaml')),
  };
  const compose = settings(join(deploy, 'compose.yaml'));
  for (const env of [kubernetes, compose]) {
    // The examples' placeholder key is not a real 32-byte key: a real one is.
    const real = { ...env, PRESSO_CONNECTOR_KEY: Buffer.alloc(32, 1).toString('base64') };
    for (const role of ROLES) assert.equal(loadConfig({ ...real, PRESSO_ROLE: role }).runtime.role, role);
    assert.equal(loadConfig(real).runtime.mode, 'scaled');
  }
});
