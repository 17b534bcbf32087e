/**
 * The end-to-end scenarios in headless Chromium against the real service over HTTPS, signed in as
 * dashboard users: sign-in (cookie flags, session id rotated), the pages at phone and desktop widths with
 * axe-core and no CSP violation, the webhook secret shown once on rotation, a member who cannot change keys or
 * connectors, an operator who changes an account's rate limit, sign-out, and two accounts side by side.
 */
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import type { Browser } from 'playwright-core';
import type { UserRole } from '../../src/users/user-store.ts';
import { startTestPresso, type TestPresso } from '../support/presso.ts';
import { checkPage, cspViolations, type DashboardPage, launchBrowser, openContext } from './browser.ts';
import { ensureDashboardBuilt } from './build.ts';

let presso: TestPresso;
let browser: Browser;
const PASSWORD = 'correct horse battery staple';

before(async () => {
  ensureDashboardBuilt();
  presso = await startTestPresso();
  browser = await launchBrowser();
});
after(async () => {
  await browser?.close();
  await presso?.stop();
});

async function user(accountId: string, email: string, role: UserRole) {
  await presso.services.users.createUser(accountId, email, role, PASSWORD);
  return email;
}

/** Opens the dashboard in a new context (its own cookies) and signs in through the form. */
async function signIn(email: string, width = 1280): Promise<DashboardPage> {
  const view = await openContext(browser, presso.url, width);
  view.page.on('dialog', (dialog) => void dialog.accept());
  await view.page.goto('/dashboard/#/sign-in');
  await view.page.getByLabel('Email').fill(email);
  await view.page.getByLabel('Password').fill(PASSWORD);
  await view.page.getByRole('button', { name: 'Sign in' }).click();
  await view.page.getByRole('heading', { level: 1, name: 'Overview' }).waitFor();
  return view;
}

async function openPage(view: DashboardPage, hash: string, title: string) {
  await view.page.goto(`/dashboard/#/${hash}`);
  await view.page.getByRole('heading', { level: 1, name: title }).waitFor();
  // Let the page's requests settle so the screenshot and the checks see the loaded page.
  await view.page.waitForLoadState('networkidle');
}

test('an owner signs in: the cookie is HttpOnly, Secure, SameSite=Strict and a new id; the pages pass', async () => {
  const email = await user(presso.account.id, 'owner@example.test', 'owner');
  const view = await openContext(browser, presso.url);
  await view.context.addCookies([
    {
      name: 'presso_session',
      value: 'planted-by-an-attacker',
      url: presso.url,
      secure: true,
      httpOnly: true,
    },
  ]);
  view.page.on('dialog', (dialog) => void dialog.accept());
  await view.page.goto('/dashboard/');
  await view.page.getByLabel('Email').fill(email);
  await view.page.getByLabel('Password').fill(PASSWORD);
  await view.page.getByRole('button', { name: 'Sign in' }).click();
  await view.page.getByRole('heading', { level: 1, name: 'Overview' }).waitFor();
  const cookie = (await view.context.cookies()).find((c) => c.name === 'presso_session');
  assert.ok(cookie);
  assert.notEqual(cookie.value, 'planted-by-an-attacker');
  assert.equal(cookie.httpOnly, true);
  assert.equal(cookie.secure, true);
  assert.equal(cookie.sameSite, 'Strict');
  assert.match((await view.page.locator('.who').textContent()) ?? '', /owner@example\.test/);

  for (const [hash, title] of [
    ['overview', 'Overview'],
    ['try', 'Try it'],
    ['jobs', 'Jobs'],
    ['keys', 'API keys'],
    ['connectors', 'Connectors'],
    ['webhooks', 'Webhooks'],
  ] as const) {
    await openPage(view, hash, title);
    await checkPage(view, hash);
  }
  await view.context.close();
});

test('the webhook secret: a hint, and a rotation shows the new secret once', async () => {
  const view = await signIn('owner@example.test', 390);
  await openPage(view, 'webhooks', 'Webhooks');
  await view.page.getByRole('button', { name: 'Rotate the secret' }).click();
  const shown = view.page.getByRole('region', { name: 'New signing secret' });
  await shown.waitFor();
  const secret = ((await shown.locator('code').textContent()) ?? '').trim();
  assert.ok(secret.length >= 24, secret);
  await checkPage(view, 'webhooks-rotated');
  await view.page.reload();
  await view.page.getByRole('heading', { level: 1, name: 'Webhooks' }).waitFor();
  await view.page.waitForLoadState('networkidle');
  assert.equal((await view.page.content()).includes(secret), false, 'the secret is not shown again');
  await view.context.close();
});

test('a member sees keys and connectors but has no way to change them', async () => {
  const view = await signIn(await user(presso.account.id, 'member@example.test', 'member'));
  await openPage(view, 'keys', 'API keys');
  assert.equal(await view.page.getByRole('button', { name: 'Create key' }).count(), 0);
  await view.page.getByText('Members see the keys').waitFor();
  await openPage(view, 'connectors', 'Connectors');
  assert.equal(await view.page.getByRole('button', { name: 'Check and save' }).count(), 0);
  // The API refuses the member too, whatever the page shows.
  const refused = await view.page.evaluate(async () => {
    const response = await fetch('/1.0/webhook-secret/rotate', { method: 'POST' });
    return response.status;
  });
  assert.ok(refused === 403, `rotate as member: ${refused}`);
  const keyRefused = await view.page.evaluate(async () => {
    const session = (await (await fetch('/1.0/session')).json()) as { csrfToken: string };
    const response = await fetch('/1.0/keys', {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-csrf-token': session.csrfToken },
      body: JSON.stringify({ name: 'not allowed' }),
    });
    return response.status;
  });
  assert.equal(keyRefused, 403, 'creating a key as a member, with a valid CSRF token');
  await openPage(view, 'users', 'Users');
  await view.page.getByRole('row', { name: /member@example\.test/ }).waitFor();
  assert.equal(await view.page.getByRole('button', { name: 'Create the invitation link' }).count(), 0);
  assert.equal(await view.page.getByRole('button', { name: /^Remove / }).count(), 0);
  assert.equal(await view.page.getByLabel('Role of owner@example.test').isDisabled(), true);
  await checkPage(view, 'users-member');
  await view.context.close();
});

test("an operator changes another account's rate limit from the operator page", async () => {
  const other = await presso.createAccount('customer-b', 1000);
  const view = await signIn(await user(presso.account.id, 'operator@example.test', 'operator'));
  await openPage(view, 'operator', 'Operator');
  await checkPage(view, 'operator');
  const input = view.page.getByLabel('Rate limit of customer-b');
  await input.fill('4321');
  await input.press('Enter');
  await view.page.waitForLoadState('networkidle');
  const account = await presso.request('/1.0/account', { auth: `Bearer ${other.key}` });
  const body = (await account.json()) as { rateLimit: { limit: number } };
  assert.equal(body.rateLimit.limit, 4321);
  await view.context.close();
});

test('sign out ends the session; another account in a second context sees only its own', async () => {
  const second = await presso.createAccount('second-account');
  const first = await signIn('owner@example.test');
  const other = await signIn(await user(second.account.id, 'owner-b@example.test', 'owner'));
  assert.match((await other.page.locator('.who').textContent()) ?? '', /second-account/);
  assert.doesNotMatch(await other.page.content(), /api-test|owner@example\.test/);

  await first.page.getByRole('button', { name: 'Sign out', exact: true }).click();
  await first.page.getByRole('heading', { level: 1, name: 'Sign in to Presso' }).waitFor();
  const status = await first.page.evaluate(async () => (await fetch('/1.0/session')).status);
  assert.equal(status, 401);
  assert.deepEqual(await cspViolations(first), []);
  await first.context.close();
  await other.context.close();
});

test('no page of the run reported a CSP violation', () => {
  assert.deepEqual(presso.presso.app.cspReports.recent, []);
});
