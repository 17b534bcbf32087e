/**
 * The dashboard in a real browser: Debian's Chromium, headless, driven by playwright-core, against the real
 * service over HTTPS (its self-signed certificate accepted by the browser context). Helpers for what every
 * dashboard test checks: screenshots at phone and desktop widths (test-artifacts/dashboard/), an axe-core
 * accessibility pass, and the Content-Security-Policy violations the page saw.
 */
import { mkdirSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join, resolve } from 'node:path';
import { type Browser, type BrowserContext, chromium, type Page } from 'playwright-core';
import { scaledMs } from '../support/time-scale.ts';

export const CHROMIUM = '/usr/bin/chromium';

export const CHROMIUM_ARGS = [
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
];

/** Phone (an iPhone's 390 CSS pixels) and desktop. */
export const WIDTHS = [390, 1280] as const;

export const ARTIFACTS = resolve(import.meta.dirname, '..', '..', 'test-artifacts', 'dashboard');

export function launchBrowser(): Promise<Browser> {
  return chromium.launch({ executablePath: CHROMIUM, args: CHROMIUM_ARGS });
}

export interface DashboardPage {
  context: BrowserContext;
  page: Page;
  /** CSP violations the page reported (its `securitypolicyviolation` events and console errors). */
  violations: string[];
  /** Requests that failed or answered 5xx, and uncaught page errors. */
  failures: string[];
}

/** Runs in the page before its scripts: records every CSP violation event (init scripts bypass the CSP). */
const RECORD_VIOLATIONS = `
  globalThis.__cspViolations = [];
  document.addEventListener('securitypolicyviolation', (e) => {
    globalThis.__cspViolations.push(e.violatedDirective + ' ' + e.blockedURI + ' ' + (e.sample || ''));
  });
`;

/** A fresh browser context (its own cookies: another user) at `width`, on the service at `baseUrl`. */
export async function openContext(browser: Browser, baseUrl: string, width = 1280): Promise<DashboardPage> {
  const context = await browser.newContext({
    baseURL: baseUrl,
    ignoreHTTPSErrors: true,
    viewport: { width, height: 900 },
  });
  // Playwright's 30 s default for an action or a page load is a hang guard here, scaled for a busy machine.
  context.setDefaultTimeout(scaledMs(120_000));
  return openPageIn(context);
}

/**
 * Another page in `view`'s context (the same cookies), at `width`. A context costs a renderer process of its
 * own (~1 CPU-s here to start and load the dashboard, against ~0.4 for a page of an open context): pages that
 * need no other cookies open here.
 */
export async function openSibling(view: DashboardPage, width = 1280): Promise<DashboardPage> {
  const sibling = await openPageIn(view.context);
  await sibling.page.setViewportSize({ width, height: 900 });
  return sibling;
}

async function openPageIn(context: BrowserContext): Promise<DashboardPage> {
  const page = await context.newPage();
  const violations: string[] = [];
  const failures: string[] = [];
  await page.addInitScript(RECORD_VIOLATIONS);
  page.on('console', (message) => {
    if (message.type() === 'error' && /Content Security Policy/i.test(message.text())) {
      violations.push(message.text());
    }
  });
  page.on('pageerror', (error) => failures.push(`page error: ${error.message}`));
  page.on('requestfailed', (request) => {
    // A media element or an event stream the page closes on purpose is aborted, not failed.
    if (request.failure()?.errorText === 'net::ERR_ABORTED') return;
    failures.push(`${request.method()} ${request.url()}: ${request.failure()?.errorText}`);
  });
  page.on('response', (response) => {
    if (response.status() >= 500)
      failures.push(`${response.request().method()} ${response.url()}: ${response.status()}`);
  });
  return { context, page, violations, failures };
}

/** Every violation the page saw so far: its event log and the console errors. */
export async function cspViolations(view: DashboardPage): Promise<string[]> {
  const events = await view.page.evaluate(
    () => (globalThis as unknown as { __cspViolations?: string[] }).__cspViolations ?? [],
  );
  return [...events, ...view.violations];
}

/** A full-page screenshot at the current width into test-artifacts/dashboard/<name>-<width>.png. */
async function screenshot(page: Page, name: string, width: number): Promise<string> {
  mkdirSync(ARTIFACTS, { recursive: true });
  const path = join(ARTIFACTS, `${name}-${width}.png`);
  await page.screenshot({ path, fullPage: true });
  return path;
}

/** The page's width overflow at the current viewport: content wider than the screen scrolls sideways. */
export function horizontalOverflow(page: Page): Promise<number> {
  return page.evaluate(() => {
    const doc = (
      globalThis as unknown as { document: { documentElement: { scrollWidth: number; clientWidth: number } } }
    ).document.documentElement;
    return doc.scrollWidth - doc.clientWidth;
  });
}

const axeSource = readFileSync(createRequire(import.meta.url).resolve('axe-core/axe.min.js'), 'utf8');

export interface AxeViolation {
  id: string;
  impact: string | null;
  help: string;
  nodes: string[];
}

/**
 * axe-core's WCAG 2.x A/AA rules over the page as it is now; returns the serious and critical violations.
 * The source is evaluated through the DevTools protocol, which the page's CSP does not apply to; once per
 * document (~0.14 CPU-s an evaluation here, more than a run): the dashboard's pages are one document, its
 * routes hash changes, so a file's checks mostly reuse the axe of their first.
 */
export async function seriousAxeViolations(page: Page): Promise<AxeViolation[]> {
  if (!(await page.evaluate(() => 'axe' in globalThis))) await page.evaluate(axeSource);
  const violations = await page.evaluate(async () => {
    type Result = {
      violations: { id: string; impact: string | null; help: string; nodes: { target: unknown[] }[] }[];
    };
    const axe = (globalThis as unknown as { axe: { run(options: unknown): Promise<Result> } }).axe;
    const result = await axe.run({
      runOnly: {
        type: 'tag',
        values: ['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa', 'wcag22aa', 'best-practice'],
      },
      resultTypes: ['violations'],
    });
    return result.violations.map((v) => ({
      id: v.id,
      impact: v.impact,
      help: v.help,
      nodes: v.nodes.map((n) => JSON.stringify(n.target)),
    }));
  });
  return violations.filter((v) => v.impact === 'serious' || v.impact === 'critical');
}

/**
 * The checks every page passes at both widths: screenshots, no serious or critical axe violation, no
 * sideways scrolling at phone width, no CSP violation, no failed request. Throws with what failed.
 */
export async function checkPage(view: DashboardPage, name: string): Promise<void> {
  const problems: string[] = [];
  const original = view.page.viewportSize();
  // One layout per width for all its checks: the screenshot, axe and the overflow see the same page.
  for (const width of WIDTHS) {
    await view.page.setViewportSize({ width, height: 900 });
    await screenshot(view.page, name, width);
    for (const v of await seriousAxeViolations(view.page)) {
      problems.push(`axe at ${width}px: ${v.impact} ${v.id} (${v.help}) at ${v.nodes.join(', ')}`);
    }
    const overflow = await horizontalOverflow(view.page);
    if (overflow > 0) problems.push(`at ${width}px the page is ${overflow}px wider than the screen`);
  }
  if (original) await view.page.setViewportSize(original);
  for (const violation of await cspViolations(view)) problems.push(`CSP: ${violation}`);
  problems.push(...view.failures);
  if (problems.length > 0) throw new Error(`${name}:\n${problems.join('\n')}`);
}
