/** axe-core in a Chromium page: the accessibility checks every UI journey shares. */
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import type { Page } from 'playwright-core';
import { REPO_ROOT } from './browser.js';

const AXE = path.join(REPO_ROOT, 'node_modules', 'axe-core', 'axe.min.js');

interface AxeResult {
  violations: { id: string; impact: string | null; nodes: { target: string[] }[] }[];
}

/**
 * axe-core's serious and critical findings ("rule: targets") in the parts `include` names
 * (CSS selectors; the whole page when empty), once every animation has ended: a dialog still
 * fading in reads as text of too little contrast.
 */
export async function axeFindings(page: Page, ...include: string[]): Promise<string[]> {
  await page.evaluate(() => Promise.all(document.getAnimations().map((animation) => animation.finished.catch(() => undefined))));
  // Evaluated rather than added as a <script>: the UI's CSP (rightly) runs no inline script.
  if (!(await page.evaluate(() => 'axe' in window))) await page.evaluate(await readFile(AXE, 'utf8'));
  const result = await page.evaluate(async (parts) => {
    const axe = (window as unknown as { axe: { run: (context?: { include: string[][] }) => Promise<AxeResult> } }).axe;
    // Only parts that are on the page: axe refuses a context that matches nothing.
    const present = parts.filter((selector) => document.querySelector(selector));
    return axe.run(parts.length === 0 ? undefined : { include: present.map((selector) => [selector]) });
  }, include);
  return result.violations
    .filter((violation) => violation.impact === 'serious' || violation.impact === 'critical')
    .map((violation) => `${violation.id}: ${violation.nodes.map((node) => node.target.join(' ')).join(', ')}`);
}
