/**
 * The browser of the browser tests: the system Chromium (Debian's `chromium`, installed by
 * scripts/ensure-chromium.mjs when missing) driven by playwright-core, never a downloaded browser.
 * Also the project's build (the web client in web/dist), screenshots, the accessibility check (axe), and the
 * page-weight measures of the performance budget.
 */
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { gzipSync } from 'node:zlib';
import { AxeBuilder } from '@axe-core/playwright';
import { type Browser, chromium, type Page } from 'playwright-core';

const root = new URL('../../../', import.meta.url).pathname;
/** Where the tests leave a screenshot of each screen (gitignored, like all of .runtime/). */
export const SCREENSHOT_DIR = join(root, '.runtime', 'screenshots');

/** Flags for a quiet, deterministic headless Chromium as root in a container (no sandbox, no GPU, no calls home). */
export const CHROMIUM_ARGS = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
];

/** Where the first browser test file of a run notes the run's id once Chromium and web/dist were checked. */
const CHECKED_FILE = join(root, '.runtime', 'browser-checked');

/**
 * Installs Chromium when missing, makes sure web/dist is built (a no-op when the build stamp is fresh, as
 * under `npm test`, which builds first), then launches the browser. The checks run once a test run (about
 * two seconds each time on a busy machine, for every browser test file otherwise). Playwright gives every
 * launch a fresh temporary `--user-data-dir` of its own and deletes it on close (it refuses the flag in `args`).
 */
export async function launchBrowser(): Promise<Browser> {
  const run = process.env.TEST_RUN_ID;
  if (!run || !existsSync(CHECKED_FILE) || readFileSync(CHECKED_FILE, 'utf8') !== run) {
    execFileSync(process.execPath, [join(root, 'scripts', 'ensure-chromium.mjs')], { stdio: ['ignore', 'inherit', 'inherit'] });
    execFileSync(process.execPath, [join(root, 'scripts', 'build.mjs'), '--quiet'], { cwd: root, stdio: ['ignore', 'inherit', 'inherit'] });
    if (run) {
      mkdirSync(dirname(CHECKED_FILE), { recursive: true });
      writeFileSync(CHECKED_FILE, run);
    }
  }
  return chromium.launch({ executablePath: process.env.CHROMIUM_PATH || '/usr/bin/chromium', headless: true, args: CHROMIUM_ARGS });
}

/** Saves a full-page screenshot of the current screen as `.runtime/screenshots/<name>.png`. */
export async function screenshot(page: Page, name: string): Promise<string> {
  mkdirSync(SCREENSHOT_DIR, { recursive: true });
  const path = join(SCREENSHOT_DIR, `${name}.png`);
  // From the top: a full-page shot of a scrolled page draws a sticky header in the middle of it.
  await page.evaluate('window.scrollTo(0, 0)');
  await page.screenshot({ path, fullPage: true });
  return path;
}

/** Rules whose outcome depends on colours alone: all a change of colour scheme can break. */
const COLOUR_RULES = ['color-contrast', 'link-in-text-block'];

/**
 * Runs axe on the page as it is now and fails naming each serious or critical violation with the elements that have
 * it; minor and moderate ones are left to judgement. Every rule axe has (WCAG A/AA and best practices) unless `rules`
 * names some; `scope` (a selector) checks that part of the page only.
 */
export async function expectNoSeriousAxeViolations(page: Page, name: string, opts: { rules?: string[]; scope?: string } = {}): Promise<void> {
  // Only violations are collected in full: listing every passing node costs most of a run's time. Legacy mode: one
  // axe.run in the page, not a run per frame and then a blank page of its own to merge them, a third of the time
  // for the same findings; it only misses cross-origin frames, and the client has no frame at all.
  let axe = new AxeBuilder({ page }).options({ resultTypes: ['violations'] }).setLegacyMode(true);
  if (opts.rules) axe = axe.withRules(opts.rules);
  if (opts.scope) axe = axe.include(opts.scope);
  const { violations } = await axe.analyze();
  const serious = violations.filter((v) => v.impact === 'serious' || v.impact === 'critical');
  if (serious.length === 0) return;
  const lines = serious.flatMap((v) => [
    `  [${v.impact}] ${v.id}: ${v.help} (${v.helpUrl})`,
    ...v.nodes.slice(0, 6).map((n) => `    ${n.target.join(' ')}: ${(n.failureSummary ?? '').replace(/\s*\n\s*/g, ' ')}`),
    ...(v.nodes.length > 6 ? [`    ... and ${v.nodes.length - 6} more`] : []),
  ]);
  throw new Error(`axe found ${serious.length} serious or critical violation(s) on ${name}:\n${lines.join('\n')}`);
}

/**
 * The two widths and two colour schemes every screen is checked and photographed at. A dark look is checked by the
 * colour rules only: it differs from the light look of its width in colours alone (styles.css).
 */
export const LOOKS = [
  { tag: 'desktop-light', width: 1440, height: 900, colorScheme: 'light', rules: undefined },
  { tag: 'desktop-dark', width: 1440, height: 900, colorScheme: 'dark', rules: COLOUR_RULES },
  { tag: 'phone-light', width: 390, height: 844, colorScheme: 'light', rules: undefined },
  { tag: 'phone-dark', width: 390, height: 844, colorScheme: 'dark', rules: COLOUR_RULES },
] as const;

/**
 * The screen as it is now at each of LOOKS (the device's colour scheme emulated, the theme switch left at "system"):
 * checked by axe (`scope`: that part of the page only, the rest being checked already) and kept as
 * `.runtime/screenshots/<name>-<look>.png`. Every look is checked and photographed before it fails, so one run shows
 * every problem. The page is left at its first look.
 */
export async function checkEveryLook(page: Page, name: string, opts: { scope?: string } = {}): Promise<void> {
  const failures: string[] = [];
  for (const look of LOOKS) {
    await page.setViewportSize({ width: look.width, height: look.height });
    await page.emulateMedia({ colorScheme: look.colorScheme });
    await screenshot(page, `${name}-${look.tag}`);
    await expectNoSeriousAxeViolations(page, `${name} (${look.tag})`, { scope: opts.scope, rules: look.rules ? [...look.rules] : undefined }).catch((e: Error) =>
      failures.push(e.message),
    );
  }
  await page.setViewportSize({ width: LOOKS[0].width, height: LOOKS[0].height });
  await page.emulateMedia({ colorScheme: LOOKS[0].colorScheme });
  if (failures.length) throw new Error(failures.join('\n'));
}

export interface ScriptWeight {
  url: string;
  gzipBytes: number;
}

/** Records every script the page loads from now on; `settled()` resolves to them once their bodies are read. */
export function recordScripts(page: Page): { settled(): Promise<ScriptWeight[]> } {
  const pending: Promise<ScriptWeight | undefined>[] = [];
  page.on('response', (res) => {
    const type = res.headers()['content-type'] ?? '';
    if (res.request().resourceType() !== 'script' && !/javascript/.test(type)) return;
    // The decoded body, gzipped here: the budget counts gzip bytes whatever encoding the server chose (brotli).
    pending.push(res.body().then((body) => ({ url: res.url(), gzipBytes: gzipSync(body).length }), () => undefined));
  });
  return { settled: async () => (await Promise.all(pending)).filter((s): s is ScriptWeight => s !== undefined) };
}

/**
 * The page's paint timings (ms since navigation start) from the Performance API: the first contentful paint
 * (`paint` entries) and the latest largest-contentful-paint candidate so far; undefined when the page painted
 * nothing within 5 s. (A string: this package's types have no DOM.)
 */
export async function paintTimings(page: Page): Promise<{ fcp: number | undefined; lcp: number | undefined }> {
  const t = (await page.evaluate(`new Promise((resolve) => {
    const fcp = () => performance.getEntriesByType('paint').find((e) => e.name === 'first-contentful-paint')?.startTime;
    let lcp = null;
    new PerformanceObserver((list) => { for (const e of list.getEntries()) lcp = e.startTime; }).observe({ type: 'largest-contentful-paint', buffered: true });
    const until = Date.now() + 5000;
    const check = () => (fcp() !== undefined || Date.now() > until ? resolve({ fcp: fcp() ?? null, lcp }) : setTimeout(check, 20));
    setTimeout(check, 0);
  })`)) as { fcp: number | null; lcp: number | null };
  return { fcp: t.fcp ?? undefined, lcp: t.lcp ?? undefined };
}
