/**
 * The shared engines the scaled-out mode runs on, as this machine kind provides them: Redis on
 * 127.0.0.1:6379 and PostgreSQL on 127.0.0.1:5432 (trust auth). A test that needs one starts it when it
 * is down, with the machine's own start command, and works under its own key prefix or database so
 * parallel runs do not collide.
 */
import { execFileSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { Redis } from 'ioredis';

export const REDIS_URL = process.env.PRESSO_TEST_REDIS_URL ?? 'redis://127.0.0.1:6379';

async function redisAnswers(): Promise<boolean> {
  const probe = new Redis(REDIS_URL, {
    lazyConnect: true,
    maxRetriesPerRequest: 0,
    retryStrategy: () => null,
  });
  try {
    await probe.connect();
    return (await probe.ping()) === 'PONG';
  } catch {
    return false;
  } finally {
    probe.disconnect();
  }
}

/** Redis is up (started with the machine's command if it was not). */
export async function ensureRedis(): Promise<void> {
  if (await redisAnswers()) return;
  execFileSync('redis-server', [
    '--daemonize',
    'yes',
    '--bind',
    '127.0.0.1',
    '-::1',
    '--port',
    '6379',
    '--save',
    '',
    '--appendonly',
    'no',
    '--dir',
    '/var/lib/redis',
    '--logfile',
    '/var/log/redis/ci.log',
  ]);
  for (let i = 0; i < 100 && !(await redisAnswers()); i++) await new Promise((r) => setTimeout(r, 100));
  if (!(await redisAnswers())) throw new Error(`Redis did not start at ${REDIS_URL}`);
}

/** A connection to the test Redis and a key prefix of its own; `close` deletes the prefix's keys. */
export async function testRedis(): Promise<{ redis: Redis; prefix: string; close(): Promise<void> }> {
  await ensureRedis();
  const redis = new Redis(REDIS_URL, { maxRetriesPerRequest: null });
  const prefix = `presso-test:${process.pid}:${randomBytes(4).toString('hex')}:`;
  return {
    redis,
    prefix,
    async close() {
      await deleteKeysUnder(redis, prefix);
      redis.disconnect();
    },
  };
}

/** Deletes every key that starts with `prefix` (a test's own keys, BullMQ's included). */
export async function deleteKeysUnder(redis: Redis, prefix: string): Promise<void> {
  let cursor = '0';
  do {
    const [next, keys] = await redis.scan(cursor, 'MATCH', `${prefix}*`, 'COUNT', 1000);
    if (keys.length > 0) await redis.del(...keys);
    cursor = next;
  } while (cursor !== '0');
}

export const POSTGRES_ADMIN_URL =
  process.env.PRESSO_TEST_POSTGRES_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';

function postgresReady(): boolean {
  try {
    execFileSync('pg_isready', ['-h', '127.0.0.1', '-p', '5432', '-q']);
    return true;
  } catch {
    return false;
  }
}

/** PostgreSQL is up (started with the machine's command if it was not). */
export async function ensurePostgres(): Promise<void> {
  if (postgresReady()) return;
  const cluster = execFileSync('ls', ['/etc/postgresql'], { encoding: 'utf8' }).trim().split('\n')[0] ?? '';
  execFileSync('pg_ctlcluster', ['--skip-systemctl-redirect', cluster, 'main', 'start']);
  for (let i = 0; i < 100 && !postgresReady(); i++) await new Promise((r) => setTimeout(r, 100));
  if (!postgresReady()) throw new Error('PostgreSQL did not start on 127.0.0.1:5432');
}

/**
 * A database of the test's own (created now, dropped by `close`), and `schemaUrl()` for a fresh schema
 * in it: a store under test migrates its own empty schema, so tests never see each other's rows.
 */
export async function testPostgres(): Promise<{
  url: string;
  schemaUrl(): Promise<string>;
  close(): Promise<void>;
}> {
  await ensurePostgres();
  const { default: pg } = await import('pg');
  const name = `presso_test_${process.pid}_${randomBytes(4).toString('hex')}`;
  const admin = new pg.Client({ connectionString: POSTGRES_ADMIN_URL });
  await admin.connect();
  await admin.query(`CREATE DATABASE ${name}`);
  await admin.end();
  const url = new URL(POSTGRES_ADMIN_URL);
  url.pathname = `/${name}`;
  let schemas = 0;
  return {
    url: url.toString(),
    async schemaUrl() {
      const schema = `s${++schemas}`;
      const client = new pg.Client({ connectionString: url.toString() });
      await client.connect();
      await client.query(`CREATE SCHEMA ${schema}`);
      await client.end();
      const scoped = new URL(url);
      scoped.searchParams.set('options', `-c search_path=${schema}`);
      return scoped.toString();
    },
    async close() {
      const end = new pg.Client({ connectionString: POSTGRES_ADMIN_URL });
      await end.connect();
      await end.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
      await end.end();
    },
  };
}
