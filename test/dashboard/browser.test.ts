/**
 * The dashboard's pages that need no session, in headless Chromium against the real service over HTTPS:
 * the sign-in page and an invitation link, at phone and desktop widths, accessible (axe-core, keyboard
 * order, focus), and held to the Content-Security-Policy (an injected inline script does not run and is
 * reported; the pages themselves cause no violation). One browser context (no test signs in): each test a
 * page of its own in it, as a page costs ~0.4 CPU-s here and a context with its renderer ~1.
 */
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import type { Browser } from 'playwright-core';
import { startTestPresso, type TestPresso } from '../support/presso.ts';
import { until } from '../support/until.ts';
import {
  checkPage,
  cspViolations,
  type DashboardPage,
  launchBrowser,
  openContext,
  openSibling,
} from './browser.ts';
import { ensureDashboardBuilt } from './build.ts';

let presso: TestPresso;
let browser: Browser;
/** The first test's page: the later tests open theirs in its context. */
let first: DashboardPage;

before(async () => {
  ensureDashboardBuilt();
  presso = await startTestPresso();
  browser = await launchBrowser();
});
after(async () => {
  await browser?.close();
  await presso?.stop();
});

test('the sign-in page: labelled fields in keyboard order, an error shown to assistive technology', async () => {
  const view = await openContext(browser, presso.url, 390);
  first = view;
  const { page } = view;
  await page.goto('/dashboard/');
  const heading = page.getByRole('heading', { level: 1, name: 'Sign in to Presso' });
  await heading.waitFor();
  // The page's heading takes the focus, so keyboard users start at the top of the new page.
  assert.equal(
    await page.evaluate(
      () =>
        (globalThis as unknown as { document: { activeElement: { tagName: string } } }).document.activeElement
          .tagName,
    ),
    'H1',
  );
  await page.keyboard.press('Tab');
  assert.equal(
    await page
      .getByLabel('Email')
      .evaluate(
        (el) => el === (el as { ownerDocument: { activeElement: unknown } }).ownerDocument.activeElement,
      ),
    true,
  );
  await page.keyboard.type('nobody@example.test');
  await page.keyboard.press('Tab');
  assert.equal(
    await page
      .getByLabel('Password')
      .evaluate(
        (el) => el === (el as { ownerDocument: { activeElement: unknown } }).ownerDocument.activeElement,
      ),
    true,
  );
  await page.keyboard.type('not the password');
  await checkPage(view, 'sign-in');
  await page.keyboard.press('Enter');
  const alert = page.getByRole('alert').last();
  await alert.waitFor();
  assert.notEqual((await alert.textContent())?.trim(), '');
  assert.deepEqual(await cspViolations(view), []);
});

test('an invitation link that is not valid says so, at both widths, accessibly', async () => {
  const view = await openSibling(first, 1280);
  await view.page.goto('/dashboard/#/invite/not-a-real-token');
  await view.page.getByRole('heading', { level: 1, name: 'Accept your invitation' }).waitFor();
  await view.page.getByRole('alert').waitFor();
  await checkPage(view, 'invite-unknown');
  await view.page.close();
});

test('the CSP is enforced in the browser: an injected inline script does not run, and the violation is seen', async () => {
  const view = await openSibling(first);
  await view.page.goto('/dashboard/');
  await view.page.getByRole('heading', { level: 1 }).waitFor();
  const ran = await view.page.evaluate(() => {
    const g = globalThis as unknown as {
      document: {
        createElement(tag: string): { textContent: string };
        body: { append(node: unknown): void };
      };
      injected?: boolean;
    };
    const script = g.document.createElement('script');
    script.textContent = 'globalThis.injected = true';
    g.document.body.append(script);
    return g.injected === true;
  });
  assert.equal(ran, false);
  const seen = await until(async () => {
    const violations = await cspViolations(view);
    return violations.length > 0 ? violations : undefined;
  }, 'the violation event');
  assert.match(seen.join('\n'), /script-src/);
  await view.page.close();
});

test('no page of this run reported a CSP violation to the service but the one injected on purpose', () => {
  const reported = presso.presso.app.cspReports.recent.filter((v) => !v.blockedUri.startsWith('inline'));
  assert.deepEqual(reported, []);
});
