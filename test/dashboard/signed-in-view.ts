/** Signing in to the dashboard through its form in a fresh browser context, and opening a page by its hash. */
import type { Browser } from 'playwright-core';
import type { UserRole } from '../../src/users/user-store.ts';
import { PASSWORD } from '../support/dashboard.ts';
import type { TestPresso } from '../support/presso.ts';
import { type DashboardPage, openContext } from './browser.ts';

/** A dashboard user of `accountId` (made through the service, as `presso user create` does). */
export async function makeUser(presso: TestPresso, accountId: string, email: string, role: UserRole) {
  await presso.services.users.createUser(accountId, email, role, PASSWORD);
  return email;
}

/** Opens the dashboard in a new context (its own cookies), accepts confirm() dialogs, signs in with the form. */
export async function signInView(
  browser: Browser,
  presso: TestPresso,
  email: string,
  width = 1280,
): Promise<DashboardPage> {
  const view = await openContext(browser, presso.url, width);
  view.page.on('dialog', (dialog) => void dialog.accept());
  await view.page.goto('/dashboard/#/sign-in');
  await signInWithForm(view, email);
  return view;
}

/**
 * The same browser as another user: its cookies cleared (the session gone, as in a fresh context) and the
 * page loaded anew (no state of the previous user's page kept), then signed in with the form. A new context
 * costs a renderer process of its own (~1 CPU-s here), this a reload (~0.2).
 */
export async function switchUser(view: DashboardPage, email: string): Promise<DashboardPage> {
  await view.context.clearCookies();
  await view.page.goto('/dashboard/#/sign-in');
  await view.page.reload();
  await view.page.getByRole('heading', { level: 1, name: 'Sign in to Presso' }).waitFor();
  await signInWithForm(view, email);
  return view;
}

async function signInWithForm(view: DashboardPage, email: string): Promise<void> {
  await view.page.getByLabel('Email').fill(email);
  await view.page.getByLabel('Password').fill(PASSWORD);
  await view.page.getByRole('button', { name: 'Sign in' }).click();
  await view.page.getByRole('heading', { level: 1, name: 'Overview' }).waitFor();
}

export async function openPage(view: DashboardPage, hash: string, title: string) {
  await view.page.goto(`/dashboard/#/${hash}`);
  await view.page.getByRole('heading', { level: 1, name: title }).waitFor();
  // Let the page's requests settle so the screenshot and the checks see the loaded page.
  await view.page.waitForLoadState('networkidle');
}
