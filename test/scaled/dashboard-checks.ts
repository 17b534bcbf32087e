/**
 * The dashboard in the scaled-out mode, checked on the API processes of test/scaled/multi-process.test.ts
 * (a second file of its own started two more API processes, its own bucket and database: ~4.7 CPU-s): every
 * API process serves it, and a session is the deployment's, not a process's. The first user is made by
 * `presso user create` against the same PostgreSQL, signs in on one API, is known on the other, and signing
 * out on the second ends the session on the first.
 */
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { join, resolve } from 'node:path';
import { test } from 'node:test';
import type { TestClient } from '../support/presso.ts';

const repoRoot = resolve(import.meta.dirname, '../..');
const PASSWORD = 'a long enough password';
const EMAIL = 'owner@fleet.test';

/** `presso user create` with the password on stdin, in the deployment `env` (its PostgreSQL). */
export function createDashboardUser(dataDir: string, env: Record<string, string>): Promise<string> {
  return new Promise((done, fail) => {
    const child = execFile(
      process.execPath,
      [join(repoRoot, 'src/cli/main.ts'), 'user', 'create', '--name', 'fleet', '--email', EMAIL],
      {
        cwd: repoRoot,
        env: { ...process.env, ...env, PRESSO_DATA_DIR: dataDir, PRESSO_LOG_LEVEL: 'silent' },
      },
      (error, stdout, stderr) => (error ? fail(new Error(`${error.message}\n${stderr}`)) : done(stdout)),
    );
    child.stdin?.end(`${PASSWORD}\n`);
  });
}

/**
 * The dashboard's tests over two API processes that answer for one public URL (`origin`, as behind a
 * balancer: the session's Origin check names it); `clients()` gives a client of each, read when a test runs.
 */
export function dashboardTests(clients: () => TestClient[], origin: () => string): void {
  test('every API process serves the dashboard with its CSP', async () => {
    for (const client of clients()) {
      const page = await client.request('/dashboard/', { auth: false });
      assert.equal(page.status, 200);
      assert.match(page.headers.get('content-security-policy') ?? '', /script-src 'self'/);
      assert.match(await page.text(), /<script type="module" [^>]*src="\/dashboard\/assets\//);
    }
  });

  test('a dashboard session made on one API is known on the other, and signing out there ends it everywhere', async () => {
    const [first, second] = clients();
    const signIn = await first!.request('/1.0/session', {
      method: 'POST',
      auth: false,
      headers: { 'content-type': 'application/json', origin: origin() },
      body: JSON.stringify({ email: EMAIL, password: PASSWORD }),
    });
    const body = (await signIn.json()) as { csrfToken: string; account: { name: string } };
    assert.equal(signIn.status, 200, JSON.stringify(body));
    assert.equal(body.account.name, 'fleet');
    const cookie = (signIn.headers.get('set-cookie') ?? '').split(';')[0]!;

    const onOther = await second!.request('/1.0/session', { auth: false, headers: { cookie } });
    assert.equal(onOther.status, 200);
    const signOut = await second!.request('/1.0/session', {
      method: 'DELETE',
      auth: false,
      headers: { cookie, origin: origin(), 'x-csrf-token': body.csrfToken },
    });
    assert.equal(signOut.status, 204);
    const after = await first!.request('/1.0/session', { auth: false, headers: { cookie } });
    assert.equal(after.status, 401);
  });
}
