/**
 * The UI in Chromium: from the double-click that opens a 10,000-file folder to its rows
 * painted (the time is taken inside the page: the dblclick event, then the first frame
 * whose DOM holds the folder's rows, then the task after that frame's paint). Each round
 * loads the UI afresh, so nothing comes from the query cache.
 */
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { Bench } from '../lib/context.js';
import { BIG_USER } from '../lib/dataset.js';
import { ROOT } from '../lib/nimbus.js';
import { fmt, notMeasured, verdict, type Row } from '../lib/report.js';
import { median } from '../lib/stats.js';

const CHROMIUM = '/usr/bin/chromium';

/**
 * The in-page timer, as source text: tsx compiles this file with esbuild's keepNames, so a
 * function handed to page.evaluate would call a `__name` helper the page does not have.
 */
function armTimer(gridLabel: string): string {
  return `window.__nimbusOpen = new Promise((resolve, reject) => {
    setTimeout(() => reject(new Error('the folder rows did not appear within 30 s')), 30000);
    document.addEventListener('dblclick', () => {
      const start = performance.now();
      const check = () => {
        const grid = document.querySelector('[role=grid][aria-label=' + ${JSON.stringify(JSON.stringify(gridLabel))} + ']');
        if (grid && grid.querySelector('[role=row][aria-rowindex="2"]')) setTimeout(() => resolve(performance.now() - start), 0);
        else requestAnimationFrame(check);
      };
      requestAnimationFrame(check);
    }, { capture: true, once: true });
  }); undefined`;
}

export async function uiRow(b: Bench): Promise<Row> {
  const files = b.ds.spec.bigFolderFiles.toLocaleString('en-US');
  const scenario = `UI: open a ${files}-file folder in Chromium`;
  const target = '< 1 s';
  if (!existsSync(path.join(ROOT, 'renderer', 'dist', 'index.html')))
    return notMeasured(scenario, target, 'renderer/dist is not built (npm run build)');
  if (!existsSync(CHROMIUM)) return notMeasured(scenario, target, `no Chromium at ${CHROMIUM}`);
  let chromium;
  try {
    ({ chromium } = await import('playwright-core'));
  } catch {
    return notMeasured(scenario, target, 'playwright-core is not installed');
  }
  const profile = mkdtempSync(path.join(os.tmpdir(), 'nimbus-bench-chromium-'));
  const context = await chromium.launchPersistentContext(profile, {
    executablePath: CHROMIUM,
    headless: true,
    args: ['--no-sandbox'],
    viewport: { width: 1280, height: 800 },
  });
  const folder = b.ds.bigFolder;
  const loads: number[] = [];
  const opens: number[] = [];
  try {
    const page = context.pages()[0] ?? (await context.newPage());
    for (let round = 0; round < b.rounds + 1; round++) {
      // A fresh document each round (a fragment-only change would not reload the app).
      await page.goto('about:blank');
      const t0 = performance.now();
      await page.goto(`${b.nimbus.url}/#key=${encodeURIComponent(b.nimbus.key)}`);
      // The admin lands on the Overview (issue 13): open big's storage from the sidebar.
      await page.getByRole('navigation', { name: 'Users and settings' }).getByText(BIG_USER, { exact: true }).click({ timeout: 60_000 });
      const folderRow = page
        .locator(`[role=grid][aria-label="Files in ${BIG_USER}"] .ft__row--body`)
        .filter({ has: page.getByText(folder, { exact: true }) });
      try {
        await folderRow.waitFor({ timeout: 60_000 });
      } catch {
        return notMeasured(scenario, target, `the UI did not show ${BIG_USER}'s folder ${folder} within 60 s of loading`);
      }
      const loaded = performance.now() - t0;
      await page.evaluate(armTimer(`Files in ${BIG_USER} › ${folder}`));
      await folderRow.dblclick();
      const opened = await page.evaluate<number>('window.__nimbusOpen');
      // The first round warms Chromium's caches of the app's scripts; it does not count.
      if (round > 0) {
        loads.push(loaded);
        opens.push(opened);
      }
      b.log(
        `  ui round ${round}: app loaded with ${BIG_USER}'s folders in ${fmt.ms(loaded)}, folder open to rows painted ${fmt.ms(opened)}${round === 0 ? ' (warm-up)' : ''}`,
      );
    }
  } finally {
    await context.close();
    rmSync(profile, { recursive: true, force: true });
  }
  return {
    scenario,
    nimbus: fmt.ms(median(opens)),
    baseline: '—',
    ratio: '—',
    target,
    verdict: verdict(median(opens) < 1000),
    detail: `headless Chromium (playwright-core), double-click on ${folder} in ${BIG_USER}'s root to the first frame painted with its rows: ${fmt.list(opens, fmt.ms)}. For reference, loading the app (${b.ds.spec.users.toLocaleString('en-US')} users in the sidebar) and opening ${BIG_USER} from it until ${BIG_USER}'s folders show: ${fmt.list(loads, fmt.ms)}.`,
  };
}
