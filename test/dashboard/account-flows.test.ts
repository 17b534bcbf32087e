/**
 * The account scenarios in headless Chromium against the real service over HTTPS: a key created in the
 * Keys page (shown once, copied) uploads over real HTTPS and is refused once revoked; an S3 connector made and
 * tested from the page against the S3 emulator, and a Try-it upload that lands in its bucket; a webhook
 * delivery replayed from a job's page (the receiver sees the second attempt) and listed in the Webhooks page;
 * the Users page inviting with a one-time link; another account's browser seeing none of it (404 by id).
 */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { after, before, test } from 'node:test';
import { ListObjectsV2Command, S3Client } from '@aws-sdk/client-s3';
import type { Browser } from 'playwright-core';
import { corpus } from '../support/corpus.ts';
import { startTestPresso, type TestPresso, testClient } from '../support/presso.ts';
import { type Receiver, startReceiver } from '../support/receiver.ts';
import { type S3Server, startS3rver } from '../support/store-servers.ts';
import { until } from '../support/until.ts';
import { checkPage, type DashboardPage, launchBrowser } from './browser.ts';
import { ensureDashboardBuilt } from './build.ts';
import { makeUser, openPage, signInView, switchUser } from './signed-in-view.ts';

let presso: TestPresso;
let browser: Browser;
let s3: S3Server;
let receiver: Receiver;
let owner: DashboardPage;
/** Jobs of the first account, which the second account must not see. */
const jobIds: string[] = [];

before(async () => {
  ensureDashboardBuilt();
  [s3, receiver] = await Promise.all([
    startS3rver(['out']),
    startReceiver((_req, res) => void res.writeHead(200).end('ok')),
  ]);
  presso = await startTestPresso({ PRESSO_OUTBOUND_ALLOW: '127.0.0.1/32' });
  browser = await launchBrowser();
  owner = await signInView(
    browser,
    presso,
    await makeUser(presso, presso.account.id, 'owner@a.test', 'owner'),
  );
  await owner.context.grantPermissions(['clipboard-read', 'clipboard-write'], { origin: presso.url });
});
after(async () => {
  await browser?.close();
  await presso?.stop();
  await Promise.all([s3?.close(), receiver?.close()]);
});

const cert = () => presso.presso.tls?.cert;
/**
 * A small real PNG (skimage's 320x240 palette image, sent as debian.png): its search at the default level
 * is ~0.1 CPU-s, the 800x600 Debian logo's was ~0.5, three times over.
 */
const smallImage = () => readFileSync(corpus.palettePng);

test('a key created in the Keys page is shown once, copied, uploads over HTTPS, and is refused once revoked', async () => {
  const { page } = owner;
  await openPage(owner, 'keys', 'API keys');
  await page.getByLabel('Name').fill('ci uploads');
  await page.getByRole('button', { name: 'Create key' }).click();
  const shown = page.getByRole('region', { name: 'New key "ci uploads"' });
  await shown.waitFor();
  const key = ((await shown.locator('code').textContent()) ?? '').trim();
  await shown.getByRole('button', { name: 'Copy' }).click();
  await shown.getByText('Copied.').waitFor();
  const copied = await page.evaluate(() =>
    (
      globalThis as unknown as { navigator: { clipboard: { readText(): Promise<string> } } }
    ).navigator.clipboard.readText(),
  );
  assert.equal(copied, key);
  await checkPage(owner, 'keys-created');

  // The key, as a script would use it: real HTTPS requests trusting the service's certificate.
  const client = testClient(presso.url, key, cert());
  const accepted = await client.upload(smallImage(), undefined, undefined, 'debian.png');
  // 200 when the job finished within the request's wait, 202 while it runs.
  assert.ok([200, 202].includes(accepted.status), await accepted.clone().text());
  const job = await client.waitForJob(((await accepted.json()) as { id: string }).id);
  assert.equal(job.status, 'completed');
  jobIds.push(String(job.id));

  await page.reload();
  await page.getByRole('heading', { level: 1, name: 'API keys' }).waitFor();
  const row = page.getByRole('row', { name: /ci uploads/ });
  assert.doesNotMatch((await row.textContent()) ?? '', /never/, 'its last use is shown');
  assert.equal((await page.content()).includes(key), false, 'the key is not shown again');
  await page.getByRole('button', { name: 'Revoke key ci uploads' }).click();
  await row.getByText(/^revoked/).waitFor();
  const refused = await client.upload(smallImage(), undefined, undefined, 'debian.png');
  assert.equal(refused.status, 401);
  await client.close();
});

test('an S3 connector made and tested from the page; a Try-it upload with it lands in the bucket', async () => {
  const { page } = owner;
  await openPage(owner, 'connectors', 'Connectors');
  await page.getByLabel('Store').selectOption('s3');
  await page.getByLabel('Name (optional)').fill('emulator');
  await page.getByLabel('Access key id').fill('S3RVER');
  await page.getByLabel('Secret access key').fill('S3RVER');
  await page.getByLabel('Endpoint (S3-compatible servers only)').fill(s3.endpoint);
  await page.locator('#c-bucket').fill('out');
  await page.locator('#c-region').fill('us-east-1');
  await page.getByRole('button', { name: 'Check and save' }).click();
  const card = page.getByRole('listitem').filter({ hasText: 'emulator' });
  await card.waitFor();
  assert.equal((await page.content()).includes('S3RVER'), false, 'the credentials never come back');
  const probe = page.getByRole('form', { name: 'Test connector emulator' });
  await probe.getByLabel('Bucket').fill('out');
  await probe.getByLabel('Region').fill('us-east-1');
  await probe.getByRole('button', { name: 'Test' }).click();
  await card.getByText('The probe object was written and deleted').waitFor();
  // A bucket the store does not have: the provider's reason is shown.
  await probe.getByLabel('Bucket').fill('no-such-bucket');
  await probe.getByRole('button', { name: 'Test' }).click();
  await card
    .getByRole('alert')
    .getByText(/no such bucket/)
    .waitFor();
  await checkPage(owner, 'connectors');

  await openPage(owner, 'try', 'Try it');
  await page.getByLabel('Connector').selectOption({ label: 'emulator (s3)' });
  await page.getByLabel('Bucket').fill('out');
  await page.getByLabel('Region (S3, B2, Spaces)').fill('us-east-1');
  await page.getByLabel('Path (a folder ending in /, or an object name)').fill('from-dashboard/');
  await page
    .locator('#try-files')
    .setInputFiles({ name: 'debian.png', mimeType: 'image/png', buffer: smallImage() });
  const result = page.getByRole('listitem').filter({ hasText: 'debian.png' });
  await result.locator('.badge-completed').waitFor({ timeout: 0 });
  const href = (await result.getByRole('link', { name: /^job / }).getAttribute('href')) ?? '';
  const job = (await (await presso.request(`/1.0/jobs/${href.split('/').pop()}`)).json()) as {
    id: string;
    output: { size: number };
  };
  jobIds.push(job.id);
  const bucket = new S3Client({
    endpoint: s3.endpoint,
    region: 'us-east-1',
    forcePathStyle: true,
    credentials: { accessKeyId: 'S3RVER', secretAccessKey: 'S3RVER' },
  });
  const listed = await bucket.send(new ListObjectsV2Command({ Bucket: 'out', Prefix: 'from-dashboard/' }));
  assert.deepEqual(
    listed.Contents?.map((o) => o.Size),
    [job.output.size],
    `objects: ${JSON.stringify(listed.Contents)}`,
  );
  bucket.destroy();
});

test("a webhook delivery replayed from the job's page reaches the receiver again and is listed", async () => {
  const response = await presso.upload(smallImage(), { webhook: { url: `${receiver.origin}/hook` } });
  const { id } = (await response.json()) as { id: string };
  jobIds.push(id);
  await receiver.waitFor(1);
  const { page } = owner;
  await openPage(owner, `jobs/${id}`, `Job ${id.slice(0, 8)}`);
  await page.getByRole('button', { name: 'Replay delivery' }).click();
  const [first, second] = (await receiver.waitFor(2)).filter((r) => r.url === '/hook');
  assert.ok(first && second);
  assert.equal(second.headers['webhook-id'], first.headers['webhook-id'], 'the same delivery, again');
  assert.equal(JSON.parse(second.body.toString()).id, id);
  await until(async () => {
    await page.reload();
    await page.getByRole('heading', { level: 2, name: 'Webhook deliveries' }).waitFor();
    return (
      (await page
        .getByRole('table', { name: /Attempts of delivery/ })
        .locator('tbody tr')
        .count()) === 2
    );
  }, 'the second attempt in the job page');
  await checkPage(owner, 'job-replayed');
  await openPage(owner, 'webhooks', 'Webhooks');
  await page
    .getByRole('link', { name: id.slice(0, 8) })
    .first()
    .waitFor();
  await checkPage(owner, 'webhooks');
});

test('the Users page invites with a one-time link, changes a role and removes a user', async () => {
  await makeUser(presso, presso.account.id, 'member@a.test', 'member');
  const { page } = owner;
  await openPage(owner, 'users', 'Users');
  await page.getByLabel('Email').fill('new@a.test');
  await page.getByLabel('Role', { exact: true }).selectOption('member');
  await page.getByRole('button', { name: 'Create the invitation link' }).click();
  const link = (
    (await page.getByRole('region', { name: 'Invitation link' }).locator('code').textContent()) ?? ''
  ).trim();
  assert.match(link, new RegExp(`^${presso.url}/dashboard/#/invite/[A-Za-z0-9_-]+$`));
  const token = link.split('/').pop();
  const invite = (await (await presso.request(`/1.0/invites/${token}`, { auth: false })).json()) as {
    email: string;
  };
  assert.equal(invite.email, 'new@a.test');
  await page.getByLabel('Role of member@a.test').selectOption('owner');
  await until(
    async () => (await users()).find((u) => u.email === 'member@a.test')?.role === 'owner',
    'the role',
  );
  await checkPage(owner, 'users');
  await page.getByRole('button', { name: 'Remove member@a.test' }).click();
  await until(async () => !(await users()).some((u) => u.email === 'member@a.test'), 'the removal');
  await page.getByRole('row', { name: /member@a\.test/ }).waitFor({ state: 'detached' });
});

async function users() {
  const all = await presso.services.users.listUsers(presso.account.id);
  return all.map((u) => ({ email: u.email, role: u.role }));
}

test("another account's browser sees none of the first's data: its job ids answer 404", async () => {
  const second = await presso.createAccount('second-account');
  // The owner's browser, its cookies cleared and the page loaded anew: a context of its own costs ~1 CPU-s.
  const other = await switchUser(owner, await makeUser(presso, second.account.id, 'b@b.test', 'owner'));
  for (const [hash, title] of [
    ['jobs', 'Jobs'],
    ['keys', 'API keys'],
    ['connectors', 'Connectors'],
    ['webhooks', 'Webhooks'],
  ] as const) {
    await openPage(other, hash, title);
    const html = await other.page.content();
    for (const text of [
      'emulator',
      'ci uploads',
      'debian.png',
      'owner@a.test',
      ...jobIds.map((j) => j.slice(0, 8)),
    ])
      assert.equal(html.includes(text), false, `${hash} shows ${text}`);
  }
  assert.ok(jobIds.length >= 3);
  for (const id of jobIds) {
    const status = await other.page.evaluate(async (job) => (await fetch(`/1.0/jobs/${job}`)).status, id);
    assert.equal(status, 404);
  }
  await other.page.goto(`/dashboard/#/jobs/${jobIds[0]}`);
  await other.page.getByRole('alert').filter({ hasText: 'No job with this id.' }).first().waitFor();
  await other.context.close();
});

test('no page of the run reported a CSP violation', () => {
  assert.deepEqual(presso.presso.app.cspReports.recent, []);
});
