/**
 * The dashboard in the scaled-out mode: every API process serves it, and a session is the deployment's, not
 * a process's. Two API processes share PostgreSQL (a database of this test's own), Redis (its own key prefix)
 * and an S3 bucket (s3rver); the first user is made by `presso user create` against the same PostgreSQL, signs
 * in on one API, is known on the other, and signing out on the second ends the session on the first.
 */
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { type SpawnedPresso, spawnPresso, type TestClient, testClient } from '../support/presso.ts';
import { ensureRedis, REDIS_URL, testPostgres } from '../support/services.ts';
import { type S3Server, startS3rver } from '../support/store-servers.ts';

const repoRoot = resolve(import.meta.dirname, '../..');
const PASSWORD = 'a long enough password';

/** `presso user create` with the password on stdin; resolves with what it printed. */
function createUser(dataDir: string, env: Record<string, string>, email: string): Promise<string> {
  return new Promise((done, fail) => {
    const child = execFile(
      process.execPath,
      [join(repoRoot, 'src/cli/main.ts'), 'user', 'create', '--name', 'fleet', '--email', email],
      {
        cwd: repoRoot,
        env: { ...process.env, ...env, PRESSO_DATA_DIR: dataDir, PRESSO_LOG_LEVEL: 'silent' },
      },
      (error, stdout, stderr) => (error ? fail(new Error(`${error.message}\n${stderr}`)) : done(stdout)),
    );
    child.stdin?.end(`${PASSWORD}\n`);
  });
}

describe('the dashboard in the scaled mode: 2 API processes', () => {
  let root: string;
  let database: Awaited<ReturnType<typeof testPostgres>>;
  let s3: S3Server;
  const apis: SpawnedPresso[] = [];
  const clients: TestClient[] = [];

  before(async () => {
    root = await mkdtemp(join(tmpdir(), 'presso-scaled-dashboard-'));
    await ensureRedis();
    database = await testPostgres();
    s3 = await startS3rver(['presso-scaled-dashboard']);
    const env = {
      PRESSO_MODE: 'scaled',
      PRESSO_DATABASE_URL: database.url,
      PRESSO_REDIS_URL: REDIS_URL,
      PRESSO_REDIS_PREFIX: `presso-test-${process.pid}-${randomBytes(4).toString('hex')}`,
      PRESSO_S3_BUCKET: 'presso-scaled-dashboard',
      PRESSO_S3_ENDPOINT: s3.endpoint,
      PRESSO_S3_FORCE_PATH_STYLE: 'true',
      PRESSO_S3_ACCESS_KEY_ID: 'S3RVER',
      PRESSO_S3_SECRET_ACCESS_KEY: 'S3RVER',
      PRESSO_CONNECTOR_KEY: randomBytes(32).toString('base64'),
      PRESSO_ROLE: 'api',
    };
    await createUser(join(root, 'cli'), env, 'owner@fleet.test');
    for (const i of [0, 1]) {
      // Both answer for one public URL, as behind a balancer: the session's Origin check names it.
      const extra: Record<string, string> = i === 0 ? {} : { PRESSO_PUBLIC_URL: apis[0]!.url };
      apis.push(await spawnPresso(join(root, `api-${i}`), { ...env, ...extra }));
    }
    for (const api of apis) clients.push(testClient(api.url, '', api.cert));
  });

  after(async () => {
    for (const client of clients) await client.close().catch(() => {});
    for (const api of apis) await api.kill('SIGKILL').catch(() => {});
    await s3?.close();
    await database?.close();
    await rm(root, { recursive: true, force: true });
  });

  test('every API process serves the dashboard with its CSP', async () => {
    for (const client of clients) {
      const page = await client.request('/dashboard/', { auth: false });
      assert.equal(page.status, 200);
      assert.match(page.headers.get('content-security-policy') ?? '', /script-src 'self'/);
      assert.match(await page.text(), /<script type="module" [^>]*src="\/dashboard\/assets\//);
    }
  });

  test('a session made on one API is known on the other, and signing out there ends it everywhere', async () => {
    const origin = apis[0]!.url;
    const signIn = await clients[0]!.request('/1.0/session', {
      method: 'POST',
      auth: false,
      headers: { 'content-type': 'application/json', origin },
      body: JSON.stringify({ email: 'owner@fleet.test', password: PASSWORD }),
    });
    const body = (await signIn.json()) as { csrfToken: string; account: { name: string } };
    assert.equal(signIn.status, 200, JSON.stringify(body));
    assert.equal(body.account.name, 'fleet');
    const cookie = (signIn.headers.get('set-cookie') ?? '').split(';')[0]!;

    const onOther = await clients[1]!.request('/1.0/session', { auth: false, headers: { cookie } });
    assert.equal(onOther.status, 200);
    const signOut = await clients[1]!.request('/1.0/session', {
      method: 'DELETE',
      auth: false,
      headers: { cookie, origin, 'x-csrf-token': body.csrfToken },
    });
    assert.equal(signOut.status, 204);
    const after = await clients[0]!.request('/1.0/session', { auth: false, headers: { cookie } });
    assert.equal(after.status, 401);
  });
});
