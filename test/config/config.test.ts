/** Configuration: each section's readers, its cross-variable rules, and the one list the README documents. */
import assert from 'node:assert/strict';
import { resolve } from 'node:path';
import { describe, it } from 'node:test';
import { ConfigError } from '../../src/errors/catalog.ts';
import { describeConfig, loadConfig } from '../../src/runtime/config.ts';

const refused = (env: Record<string, string>, message: RegExp) =>
  assert.throws(
    () => loadConfig(env),
    (e: unknown) => e instanceof ConfigError && message.test(e.message),
  );

describe('configuration', () => {
  it('loads every default from an empty environment', () => {
    const config = loadConfig({});
    assert.equal(config.dataDir, resolve('./data'));
    assert.equal(config.server.port, 8443);
    assert.equal(config.server.publicUrl, 'https://localhost:8443');
    assert.equal(config.jobs.asyncThresholdBytes, 32 * 1024 * 1024);
    assert.equal(config.webhooks.retrySchedule.length, 7);
    assert.equal(config.images.maxPixels, 50_000_000);
    assert.deepEqual(config.outbound.allowCidrs, []);
    assert.equal(config.bootstrapAccount, undefined);
  });

  it('reads units, durations and lists', () => {
    const config = loadConfig({
      PRESSO_MAX_INPUT_BYTES: '2GiB',
      PRESSO_SYNC_TIMEOUT: '90',
      PRESSO_WEBHOOK_RETRY_SCHEDULE: '1s, 2m',
      PRESSO_OUTBOUND_ALLOW: '10.0.0.0/8, ::1/128',
      PRESSO_PORT: '9000',
      PRESSO_PUBLIC_URL: 'https://img.example.com//',
    });
    assert.equal(config.jobs.maxInputBytes, 2 * 1024 ** 3);
    assert.equal(config.jobs.syncTimeoutMs, 90_000);
    assert.deepEqual(config.webhooks.retrySchedule, [1000, 120_000]);
    assert.deepEqual(config.outbound.allowCidrs, ['10.0.0.0/8', '::1/128']);
    assert.equal(config.server.publicUrl, 'https://img.example.com');
  });

  it('names the variable in every refusal', () => {
    refused({ PRESSO_PORT: 'eighty' }, /^PRESSO_PORT must be an integer/);
    refused({ PRESSO_PORT: '70000' }, /^PRESSO_PORT must be between 0 and 65535/);
    refused({ PRESSO_MAX_INPUT_BYTES: '12 parsecs' }, /^PRESSO_MAX_INPUT_BYTES must be a size/);
    refused({ PRESSO_OUTPUT_TTL: 'soon' }, /^PRESSO_OUTPUT_TTL must be a duration/);
    refused({ PRESSO_WEBHOOK_RETRY_SCHEDULE: '1s,later' }, /^PRESSO_WEBHOOK_RETRY_SCHEDULE must be a comma/);
    refused({ PRESSO_LOG_LEVEL: 'loud' }, /^PRESSO_LOG_LEVEL must be one of fatal, error/);
    refused(
      { PRESSO_OUTBOUND_ALLOW: '10.0.0.0/8,10.0.0.300' },
      /^PRESSO_OUTBOUND_ALLOW has an invalid .*10\.0\.0\.300/,
    );
  });

  it('checks rules that span variables', () => {
    refused({ PRESSO_TLS: 'off' }, /PRESSO_TLS=off needs PRESSO_TRUSTED_PROXIES/);
    assert.equal(loadConfig({ PRESSO_TLS: 'off', PRESSO_TRUSTED_PROXIES: '10.0.0.1' }).server.tls, 'off');
    refused({ PRESSO_TLS_CERT: '/etc/cert.pem' }, /PRESSO_TLS_CERT and PRESSO_TLS_KEY must be set together/);
    refused(
      { PRESSO_MAX_INPUT_BYTES: '10MiB', PRESSO_ASYNC_THRESHOLD_BYTES: '20MiB' },
      /PRESSO_ASYNC_THRESHOLD_BYTES must not exceed PRESSO_MAX_INPUT_BYTES/,
    );
    refused({ PRESSO_EVENTS_HEARTBEAT: '500ms' }, /PRESSO_EVENTS_HEARTBEAT must be at least 1s/);
    assert.equal(loadConfig({ PRESSO_EVENTS_HEARTBEAT: '30s' }).jobs.eventsHeartbeatMs, 30_000);
  });

  it('describes each variable once, without loading anything', () => {
    const names = describeConfig().map((v) => v.name);
    assert.equal(new Set(names).size, names.length, 'a variable is declared twice');
    assert.ok(names.every((n) => /^PRESSO_[A-Z0-9_]+$/.test(n)));
    const port = describeConfig().find((v) => v.name === 'PRESSO_PORT');
    assert.deepEqual(port, {
      name: 'PRESSO_PORT',
      default: '8443',
      description: 'TCP port of the HTTPS API',
    });
  });
});
