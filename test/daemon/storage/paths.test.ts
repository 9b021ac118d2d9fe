/**
 * resolveUserPath (storage/paths.ts), the second wall under every name check: on POSIX it joins
 * the names instead of calling path.resolve; it must give path.resolve's string for every name
 * the checks let through, and throw for every name that could leave its level.
 */
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { PathOutsideRoot } from '../../../daemon/errors.js';
import { resolveUserPath } from '../../../daemon/storage/paths.js';

const roots = ['/srv/nimbus/storage', '/srv/nimbus/storage/', '/srv//nimbus/./storage', '/', 'relative/storage'];
const names = ['a', 'file.txt', '...', '..notes', 'a.', ' ', ' lead', 'ünï', 'name with spaces', '.hidden', '~', '-', 'C:', '%2e%2e'];

describe('resolveUserPath', () => {
  it("gives path.resolve's path for every name the checks let through, at every depth", () => {
    for (const root of roots)
      for (const user of names)
        for (const folder of [null, ...names])
          for (const file of [undefined, ...names.slice(0, 4)]) {
            const parts = [folder, file].filter((c): c is string => typeof c === 'string');
            expect(resolveUserPath(root, user, folder, file)).toBe(path.resolve(root, user, ...parts));
          }
  });

  it('throws for a name that is not one component: empty, ".", "..", a separator or a NUL', () => {
    for (const bad of ['', '.', '..', 'a/b', '/abs', 'a\\b', 'a\0b', '../x'])
      for (const where of [0, 1, 2]) {
        const args: [string, string | null, string | undefined] = ['ok', null, undefined];
        if (where === 0) args[0] = bad;
        else if (where === 1) args[1] = bad;
        else args[2] = bad;
        expect(() => resolveUserPath('/srv/storage', ...args), `${JSON.stringify(bad)} at ${where}`).toThrow(PathOutsideRoot);
      }
  });
});
