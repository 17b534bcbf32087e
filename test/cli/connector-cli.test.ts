/**
 * `presso connector add|list|test|remove` against s3rver: the probe runs before a connector is kept, its
 * credentials (from a file) are never printed, a bucket that does not exist is refused with the reason.
 */
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { after, before, test } from 'node:test';
import { type S3Server, startS3rver } from '../support/store-servers.ts';

const root = resolve(import.meta.dirname, '../..');
let dataDir: string;
let s3: S3Server;

function presso(...args: string[]): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((done) => {
    const child = execFile(
      process.execPath,
      [join(root, 'src/cli/main.ts'), ...args],
      {
        cwd: root,
        env: {
          ...process.env,
          PRESSO_DATA_DIR: dataDir,
          PRESSO_LOG_LEVEL: 'silent',
          PRESSO_OUTBOUND_ALLOW: '127.0.0.1/32',
        },
      },
      (_error, stdout, stderr) => done({ code: child.exitCode, stdout, stderr }),
    );
  });
}

before(async () => {
  dataDir = await mkdtemp(join(tmpdir(), 'presso-cli-connector-'));
  s3 = await startS3rver(['out']);
});
after(async () => {
  await s3?.close();
  await rm(dataDir, { recursive: true, force: true });
});

test('connector add, list, test and remove from the command line', async () => {
  const account = JSON.parse((await presso('account', 'create', '--name', 'cli')).stdout).account
    .id as string;
  const credentials = join(dataDir, 'credentials.json');
  await writeFile(
    credentials,
    JSON.stringify({ accessKeyId: 'S3RVER', secretAccessKey: 'S3RVER-SECRET-VALUE', endpoint: s3.endpoint }),
  );
  const common = [
    '--account',
    account,
    '--kind',
    's3',
    '--region',
    'us-east-1',
    '--credentials',
    `@${credentials}`,
  ];

  const refused = await presso('connector', 'add', ...common, '--bucket', 'no-such-bucket');
  assert.equal(refused.code, 1);
  assert.match(refused.stderr, /bucket: The probe write failed: The Amazon S3 store has no such bucket/);

  const added = await presso('connector', 'add', ...common, '--bucket', 'out', '--name', 'exports');
  assert.equal(added.code, 0, added.stderr);
  const connector = JSON.parse(added.stdout) as { id: string; name: string };
  assert.equal(connector.name, 'exports');
  const listed = await presso('connector', 'list', '--account', account);
  assert.deepEqual(
    JSON.parse(listed.stdout).map((c: { id: string }) => c.id),
    [connector.id],
  );
  for (const output of [added.stdout, listed.stdout]) assert.ok(!output.includes('SECRET-VALUE'));

  const tested = await presso(
    'connector',
    'test',
    connector.id,
    '--account',
    account,
    '--bucket',
    'out',
    '--region',
    'us-east-1',
  );
  assert.equal(tested.code, 0, tested.stderr);
  assert.equal((await presso('connector', 'remove', connector.id, '--account', account)).code, 0);
  assert.deepEqual(JSON.parse((await presso('connector', 'list', '--account', account)).stdout), []);
  assert.equal((await presso('connector', 'remove', connector.id, '--account', account)).code, 1);
});
