/**
 * `presso user create`: the first user of a new account in one command (password from stdin, never printed),
 * a user for an existing account, a one-time invite link instead of a password, and refusals with a reason.
 * The users it makes sign in through the same services the API uses.
 */
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { after, before, test } from 'node:test';
import { loadConfig } from '../../src/runtime/config.ts';
import { createLogger } from '../../src/runtime/logger.ts';
import { openServices } from '../../src/runtime/open-services.ts';

const root = resolve(import.meta.dirname, '../..');
const PASSWORD = 'a long enough password';
let dataDir: string;

function presso(
  stdin: string,
  ...args: string[]
): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((done) => {
    const child = execFile(
      process.execPath,
      [join(root, 'src/cli/main.ts'), ...args],
      { cwd: root, env: { ...process.env, PRESSO_DATA_DIR: dataDir, PRESSO_LOG_LEVEL: 'silent' } },
      (_error, stdout, stderr) => done({ code: child.exitCode, stdout, stderr }),
    );
    child.stdin?.end(stdin);
  });
}

async function withServices<T>(fn: (s: Awaited<ReturnType<typeof openServices>>) => Promise<T>): Promise<T> {
  const services = await openServices(
    loadConfig({ PRESSO_DATA_DIR: dataDir, PRESSO_LOG_LEVEL: 'silent' }),
    createLogger('silent'),
  );
  try {
    return await fn(services);
  } finally {
    await services.close();
  }
}

before(async () => {
  dataDir = await mkdtemp(join(tmpdir(), 'presso-cli-user-'));
});
after(() => rm(dataDir, { recursive: true, force: true }));

test('makes a new account and its first owner in one command; the owner signs in with the password given on stdin', async () => {
  const result = await presso(
    `${PASSWORD}\n`,
    'user',
    'create',
    '--name',
    'Acme',
    '--email',
    'Boss@Acme.example',
  );
  assert.equal(result.code, 0, result.stderr);
  assert.ok(!result.stdout.includes(PASSWORD));
  const out = JSON.parse(result.stdout);
  assert.equal(out.account.name, 'Acme');
  assert.match(out.key.key, /^psk_/);
  assert.deepEqual(out.user, {
    id: out.user.id,
    accountId: out.account.id,
    email: 'boss@acme.example',
    role: 'owner',
  });
  await withServices(async ({ sessions }) => {
    const signedIn = await sessions.signIn('boss@acme.example', PASSWORD, '127.0.0.1');
    assert.equal(signedIn.user.id, out.user.id);
    assert.equal(signedIn.account.id, out.account.id);
    await assert.rejects(sessions.signIn('boss@acme.example', `${PASSWORD}\n`, '127.0.0.1'), /incorrect/);
  });

  const member = await presso(
    PASSWORD,
    'user',
    'create',
    '--account',
    out.account.id,
    '--email',
    'm@acme.example',
    '--role',
    'member',
  );
  assert.equal(member.code, 0, member.stderr);
  assert.equal(JSON.parse(member.stdout).user.role, 'member');

  const invited = await presso(
    '',
    'user',
    'create',
    '--account',
    out.account.id,
    '--email',
    'new@acme.example',
    '--invite',
  );
  assert.equal(invited.code, 0, invited.stderr);
  const { invite } = JSON.parse(invited.stdout);
  const token = String(invite.url).split('#/invite/')[1] ?? '';
  assert.match(invite.url, /^https:\/\/localhost:8443\/dashboard\/#\/invite\/[A-Za-z0-9_-]{43}$/);
  await withServices(async ({ users }) => {
    assert.deepEqual(await users.describeInvite(token), {
      email: 'new@acme.example',
      accountName: 'Acme',
      role: 'owner',
    });
  });
});

test('refuses a short password, a taken email, an unknown role or account, with the reason', async () => {
  const short = await presso('short', 'user', 'create', '--name', 'B', '--email', 'b@b.example');
  assert.notEqual(short.code, 0);
  const role = await presso(
    PASSWORD,
    'user',
    'create',
    '--name',
    'B',
    '--email',
    'b@b.example',
    '--role',
    'root',
  );
  assert.equal(role.code, 2);
  assert.match(role.stderr, /--role must be one of owner, member, operator/);
  const account = await presso(PASSWORD, 'user', 'create', '--account', 'nope', '--email', 'c@c.example');
  assert.equal(account.code, 1);
  assert.match(account.stderr, /No account nope/);
  const taken = await presso(PASSWORD, 'user', 'create', '--name', 'C', '--email', 'boss@acme.example');
  assert.equal(taken.code, 1);
  assert.match(taken.stderr, /already has a user/);
  await withServices(async ({ accounts }) => {
    assert.deepEqual(
      (await accounts.listAccounts()).map((a) => a.name),
      ['Acme'],
    );
  });
  const both = await presso(PASSWORD, 'user', 'create', '--email', 'd@d.example');
  assert.equal(both.code, 2);
});
