/**
 * The lint rule that keeps daemon/'s inner layers (`nimbus/daemon-layers` in eslint.config.js,
 * docs/architecture.md#layers), run through ESLint with the project's own configuration on
 * sources that are not in the tree (`lintText` with the path they would have).
 */
import { ESLint } from 'eslint';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const eslint = new ESLint({ cwd: ROOT });

/** The messages of the layer rule for `source` as if it were `daemon/<file>`. */
async function layerErrors(file: string, source: string): Promise<string[]> {
  const [result] = await eslint.lintText(source, { filePath: `${ROOT}daemon/${file}` });
  return result.messages.filter((message) => message.ruleId === 'nimbus/daemon-layers').map((message) => message.message);
}

describe('nimbus/daemon-layers', () => {
  it('fails an import of a layer above, type-only or dynamic alike, naming both layers', async () => {
    const errors = await layerErrors(
      'store/probe.ts',
      [
        "import type { NimbusContext } from '../context.js';",
        "export const quota = () => import('../services/quota.js');",
        'export type Context = NimbusContext;',
      ].join('\n'),
    );
    expect(errors).toEqual([
      expect.stringContaining('../context.js is services, above store'),
      expect.stringContaining('../services/quota.js is services, above store'),
    ]);
  });

  it('passes imports of the same layer and the layers below', async () => {
    const source = [
      "import { foldName } from '../storage/case-folds.js';",
      "import { ApiError } from '../errors.js';",
      "import { QuotaHold } from './quota.js';",
      'export { foldName, ApiError, QuotaHold };',
    ].join('\n');
    expect(await layerErrors('services/probe.ts', source)).toEqual([]);
  });

  it("resolves each import: a migration's ./index.js is its own list, not the daemon's entry", async () => {
    const source = "import type { Migration } from './index.js';\nexport type M = Migration;\n";
    expect(await layerErrors('store/postgres/migrations/probe.ts', source)).toEqual([]);
    expect(await layerErrors('util/probe.ts', source.replace('./index.js', '../index.js'))).toEqual([
      expect.stringContaining('../index.js is entry, above util'),
    ]);
  });

  it('fails a module that no layer holds', async () => {
    expect(await layerErrors('stray.ts', 'export const stray = 1;\n')).toEqual([expect.stringContaining('daemon/stray.ts is in no layer')]);
  });
});
