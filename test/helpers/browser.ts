/** Real Chromium for UI tests (Debian's /usr/bin/chromium through playwright-core) and the built renderer. */
import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdir, mkdtemp, readdir, rm, stat } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { chromium, type BrowserContext, type Page } from 'playwright-core';

const run = promisify(execFile);

export const CHROMIUM_PATH = process.env.NIMBUS_CHROMIUM ?? '/usr/bin/chromium';
export const REPO_ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');
export const ARTIFACTS_DIR = path.join(REPO_ROOT, 'test-artifacts');

/** Whether UI tests can run here; with NIMBUS_REQUIRE_E2E=1 a missing browser is a failure, not a skip. */
export function browserAvailable(): boolean {
  const found = existsSync(CHROMIUM_PATH);
  if (!found && process.env.NIMBUS_REQUIRE_E2E === '1') {
    throw new Error(`NIMBUS_REQUIRE_E2E=1 but no Chromium at ${CHROMIUM_PATH} (apt-get install -y chromium)`);
  }
  return found;
}

async function newestMtime(dir: string): Promise<number> {
  let newest = 0;
  for (const entry of await readdir(dir, { withFileTypes: true })) {
    if (entry.name === 'dist' || entry.name === 'node_modules' || entry.name === '.build-lock') continue;
    const full = path.join(dir, entry.name);
    newest = Math.max(newest, entry.isDirectory() ? await newestMtime(full) : (await stat(full)).mtimeMs);
  }
  return newest;
}

/** Builds renderer/dist (which the daemon serves at `/`) when it is missing or older than the sources. */
export async function ensureRendererBuilt(): Promise<void> {
  // Test files run in parallel processes: one builds while the others wait for it.
  const lock = path.join(REPO_ROOT, 'renderer', '.build-lock');
  for (;;) {
    try {
      await mkdir(lock);
      break;
    } catch {
      const age = Date.now() - ((await stat(lock).catch(() => null))?.mtimeMs ?? Date.now());
      if (age > 180_000) await rm(lock, { recursive: true, force: true }); // left by a killed run
      await new Promise((resolve) => setTimeout(resolve, 200));
    }
  }
  try {
    await buildRendererIfStale();
  } finally {
    await rm(lock, { recursive: true, force: true });
  }
}

async function buildRendererIfStale(): Promise<void> {
  const index = path.join(REPO_ROOT, 'renderer', 'dist', 'index.html');
  if (existsSync(index)) {
    const built = (await stat(index)).mtimeMs;
    const sources = Math.max(await newestMtime(path.join(REPO_ROOT, 'renderer')), await newestMtime(path.join(REPO_ROOT, 'shared')));
    if (built >= sources) return;
  }
  await run(
    process.execPath,
    [path.join(REPO_ROOT, 'node_modules', 'vite', 'bin', 'vite.js'), 'build', '--config', 'renderer/vite.config.ts', '--logLevel', 'warn'],
    {
      cwd: REPO_ROOT,
      // vitest sets NODE_ENV=test, which would make Vite bundle React's development build.
      env: { ...process.env, NODE_ENV: 'production' },
      maxBuffer: 16 * 1024 * 1024,
    },
  );
}

export interface TestBrowser {
  context: BrowserContext;
  close(): Promise<void>;
}

/** A fresh headless Chromium profile in a temp directory, removed on close. */
export async function launchBrowser(): Promise<TestBrowser> {
  const profile = await mkdtemp(path.join(os.tmpdir(), 'nimbus-chromium-'));
  const context = await chromium.launchPersistentContext(profile, {
    executablePath: CHROMIUM_PATH,
    headless: true,
    viewport: { width: 1280, height: 800 },
    acceptDownloads: true,
    args: [
      '--headless',
      '--no-sandbox',
      '--disable-gpu',
      '--disable-quic',
      '--no-first-run',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
    ],
  });
  // Fail a step well before the test's own timeout, so the error names the step.
  context.setDefaultTimeout(10_000);
  return {
    context,
    async close() {
      await context.close();
      await rm(profile, { recursive: true, force: true });
    },
  };
}

/**
 * A fresh Chromium at the desktop size (1400×900) with the daemon at `url` open and `username`
 * signed in by the sign-in form; the page's uncaught errors go to `pageErrors`.
 */
export async function openSignedIn(
  url: string,
  username: string,
  password: string,
  pageErrors: string[],
): Promise<{ browser: TestBrowser; page: Page }> {
  const browser = await launchBrowser();
  const page = browser.context.pages()[0] ?? (await browser.context.newPage());
  await page.setViewportSize({ width: 1400, height: 900 });
  page.on('pageerror', (error) => pageErrors.push(error.message));
  await page.goto(url);
  await page.getByLabel('Username').fill(username);
  await page.getByLabel('Password', { exact: true }).fill(password);
  await page.getByRole('button', { name: 'Sign in', exact: true }).click();
  return { browser, page };
}

/**
 * Resolves once the page's finite animations have ended and two frames have been laid out
 * after them: boxes read then are where things rest. One frame is not enough: a
 * ResizeObserver (the toast strip's) runs after that frame's animation callbacks, and a
 * layout it changes moves what was scrolled into view a moment before. A toast's 160 ms
 * slide-in and a late relayout after a resize were the boxes two toast tests met in CI.
 */
export async function layoutSettled(page: Page): Promise<void> {
  await page.evaluate(async () => {
    const finite = document.getAnimations().filter((animation) => animation.effect?.getComputedTiming().iterations !== Infinity);
    await Promise.all(finite.map((animation) => animation.finished.catch(() => undefined)));
    for (let frame = 0; frame < 2; frame++) await new Promise(requestAnimationFrame);
  });
}

/** A box on the page, as Playwright's boundingBox() gives it. */
export interface Box {
  x: number;
  y: number;
  width: number;
  height: number;
}

/** Whether two boxes overlap. */
export const overlaps = (a: Box, b: Box): boolean =>
  a.x < b.x + b.width && b.x < a.x + a.width && a.y < b.y + b.height && b.y < a.y + a.height;
