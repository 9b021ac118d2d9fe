/**
 * The endpoint table is one contract at compile time (issue 11): the daemon's handlers, the
 * UI's client and the tests' helper are all typed from `shared/endpoints.ts`, so a parameter
 * renamed there, or a response field changed in shared/types.ts, fails `npm run typecheck` in
 * all three at once.
 *
 * Each `// @ts-expect-error` below marks a line that must stay a type error: a misspelled
 * parameter name or a wrong response field. If the contract loosened (a handler map typed
 * `Record<string, …>`, a client taking any params, a body typed `any`), the line would compile,
 * the directive would be unused, and `tsc` would fail on it. vitest runs this file too, so the
 * `expectTypeOf` assertions pin the derived types; nothing here calls the daemon.
 */
import { describe, expectTypeOf, it } from 'vitest';
import type { ParamsOf, ResponseOf } from '../../shared/endpoints.js';
import type { FileEntry, User } from '../../shared/types.js';
import { HANDLERS, type Handler } from '../../daemon/http/handlers.js';
import type { NimbusClient } from '../../renderer/api/client.js';
import { api, apiLoose } from '../helpers/api.js';
import type { TestDaemon } from '../helpers/daemon.js';

describe('the table gives each endpoint its parameter and response types', () => {
  it('derives required, optional and typed parameters from the row', () => {
    expectTypeOf<ParamsOf<'files.rename'>>().toEqualTypeOf<{ username: string; file: string; newname: string; folder?: string }>();
    // Values are what the checks produce: a number for maxStorage, a boolean for a flag.
    expectTypeOf<ParamsOf<'role.create'>>().toEqualTypeOf<{ name: string; maxStorage: number; badge?: string }>();
    expectTypeOf<ParamsOf<'files.upload'>['overwrite']>().toEqualTypeOf<boolean | undefined>();
    expectTypeOf<ParamsOf<'keys.create'>['scope']>().toEqualTypeOf<'admin' | 'read' | 'write'>();
    // A path parameter is a parameter like any other.
    expectTypeOf<ParamsOf<'share.download'>>().toEqualTypeOf<{
      token: string;
      inline?: boolean;
      download?: boolean;
      path?: string;
      zip?: boolean;
    }>();
    expectTypeOf<ParamsOf<'dash.get'>>().toEqualTypeOf<{}>(); // eslint-disable-line @typescript-eslint/no-empty-object-type
  });

  it('maps each id to its response in shared/types.ts', () => {
    expectTypeOf<ResponseOf<'files.rename'>>().toEqualTypeOf<{ msg: string; file: FileEntry }>();
    expectTypeOf<ResponseOf<'user.get'>>().toEqualTypeOf<User>();
  });
});

describe('the daemon’s handlers are typed by endpoint id', () => {
  it('hands each handler its endpoint’s parameters and expects its response', () => {
    expectTypeOf(HANDLERS['files.rename']).toEqualTypeOf<Handler<'files.rename'>>();
    expectTypeOf<Parameters<Handler<'files.rename'>>[0]['params']>().toEqualTypeOf<ParamsOf<'files.rename'>>();
  });

  it('refuses a misspelled parameter and a wrong response field', () => {
    const file = {} as FileEntry;
    const reads: Handler<'files.rename'> = ({ params }) => ({
      msg: 'File renamed',
      // @ts-expect-error -- the table calls it `newname`
      file: { ...file, name: params.newName },
    });
    // @ts-expect-error -- files.rename answers `file`, not `files`
    const answers: Handler<'files.rename'> = () => ({ msg: 'File renamed', files: file });
    // @ts-expect-error -- a handler answers its own endpoint's response (user.get answers a User)
    const wrongEndpoint: Handler<'user.get'> = () => ({ msg: 'File renamed', file });
    expectTypeOf(reads).toBeFunction();
    expectTypeOf(answers).toBeFunction();
    expectTypeOf(wrongEndpoint).toBeFunction();
  });
});

describe('the UI client is typed by endpoint id', () => {
  // Only type-checked: never called.
  const uses = async (client: NimbusClient) => {
    await client.call('files.rename', { username: 'ana', file: 'a.txt', newname: 'b.txt' });
    // @ts-expect-error -- the table calls it `newname`
    await client.call('files.rename', { username: 'ana', file: 'a.txt', newName: 'b.txt' });
    // @ts-expect-error -- a required parameter left out
    await client.call('files.rename', { username: 'ana', file: 'a.txt' });
    // @ts-expect-error -- maxStorage is a number of MiB, as its check produces
    await client.call('role.create', { name: 'gold', maxStorage: 'lots', badge: 'https://example.com/b.png' });
    const renamed = await client.call('files.rename', { username: 'ana', file: 'a.txt', newname: 'b.txt' });
    // @ts-expect-error -- the answer's field is `file`
    void renamed.files;
    const user = await client.call('user.get', { username: 'ana' });
    // @ts-expect-error -- usage counts `usedBytes`
    void user.usage.used;
    // @ts-expect-error -- bytes are not a JSON call: client.download() fetches them
    await client.call('files.download', { username: 'ana', file: 'a.txt' });
    return { name: renamed.file.name, used: user.usage.usedBytes };
  };

  it('takes ParamsOf<Id> and answers ResponseOf<Id>', () => {
    expectTypeOf(uses).returns.resolves.toEqualTypeOf<{ name: string; used: number }>();
    type Call = NimbusClient['call'];
    expectTypeOf<Call>().toBeFunction();
    expectTypeOf<Awaited<ReturnType<typeof NimbusClient.prototype.call<'files.rename'>>>>().toEqualTypeOf<ResponseOf<'files.rename'>>();
  });
});

describe('the tests’ API helper is typed by endpoint id', () => {
  // Only type-checked: never called.
  const uses = async (t: TestDaemon) => {
    await api(t, 'files.rename', { username: 'ana', file: 'a.txt', newname: 'b.txt' });
    // @ts-expect-error -- the table calls it `newname`
    await api(t, 'files.rename', { username: 'ana', file: 'a.txt', newName: 'b.txt' });
    // @ts-expect-error -- even a test of bad input sends the parameters by their table names
    await apiLoose(t, 'files.rename', { username: 'ana', file: 'a.txt', new_name: '' });
    const res = await api(t, 'files.rename', { username: 'ana', file: 'a.txt', newname: 'b.txt' });
    // @ts-expect-error -- the answer's field is `file`
    void res.body.files;
    await api(t, 'share.download', { token: 'A'.repeat(43) });
    // @ts-expect-error -- the share route's path parameter is `token`
    await api(t, 'share.download', { id: 'A'.repeat(43) });
    return res.body.file.name;
  };

  it('takes ParamsOf<Id> and answers ResponseOf<Id>', () => {
    expectTypeOf(uses).returns.resolves.toEqualTypeOf<string>();
  });
});
