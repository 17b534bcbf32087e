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
      let cursor = '0';
      do {
        const [next, keys] = await redis.scan(cursor, 'MATCH', `${prefix}*`, 'COUNT', 1000);
        if (keys.length > 0) await redis.del(...keys);
        cursor = next;
      } while (cursor !== '0');
      redis.disconnect();
    },
  };
}
