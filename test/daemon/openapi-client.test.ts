/**
 * A client generated from the daemon's live OpenAPI document, by tools nobody here wrote
 * (issue 28, item 5): openapi-typescript turns /api/openapi.json into types, a small client
 * written against them with openapi-fetch must type-check under `strict` (its `@ts-expect-error`
 * lines too: the types refuse what the API does not send), and then runs the journey against
 * the daemon: the public document, a user made, a multipart upload, a listing, a download, and
 * the `{error, code}` of a 404.
 */
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import openapiTS, { astToString } from 'openapi-typescript';
import ts from 'typescript';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestDaemon, type TestDaemon } from '../helpers/daemon.js';

let t: TestDaemon;
let dir: string;

beforeAll(async () => {
  t = await startTestDaemon();
  // Inside the project (git-ignored), so that the client resolves openapi-fetch from its node_modules.
  dir = await mkdtemp(path.join(process.cwd(), 'test-artifacts', 'openapi-client-'));
});
afterAll(async () => {
  await t.close();
  await rm(dir, { recursive: true, force: true });
});

/** `format: binary` as Blob, as openapi-typescript's documentation shows for file uploads (its default is string). */
const BLOB = ts.factory.createTypeReferenceNode('Blob');

const CLIENT = `
import createClient from 'openapi-fetch';
import type { components, paths } from './nimbus-api.js';

type User = components['schemas']['User'];
type FileEntry = components['schemas']['FileEntry'];
type ErrorBody = components['schemas']['Error'];

export interface Journey {
  version: string;
  user: User;
  uploaded: FileEntry;
  names: string[];
  total: string | null;
  bytes: string;
  missingStatus: number;
  missing: ErrorBody;
}

export async function journey(baseUrl: string, key: string): Promise<Journey> {
  // The document itself is public: no key.
  const described = await createClient<paths>({ baseUrl }).GET('/api/openapi.json');
  if (!described.data) throw new Error('the OpenAPI document asked for a key');
  const client = createClient<paths>({ baseUrl, headers: { 'API-Key': key } });

  const created = await client.POST('/api/user/create', {
    params: { query: { username: 'ana', email: 'ana@example.com', password: 'correct horse battery' } },
  });
  if (!created.data) throw new Error(\`user.create: \${created.response.status}\`);
  // @ts-expect-error -- a user record never carries a password hash
  void created.data.user.passwordHash;

  const uploaded = await client.POST('/api/files/upload', {
    params: { query: { username: 'ana', file: 'hello.txt' } },
    body: { file: new Blob(['hello, nimbus'], { type: 'text/plain' }) },
    bodySerializer(body) {
      const form = new FormData();
      form.append('file', body instanceof Blob ? body : body.file, 'hello.txt');
      return form;
    },
  });
  if (!uploaded.data) throw new Error(\`files.upload: \${uploaded.response.status}\`);
  // @ts-expect-error -- files.upload answers \`file\`, not \`files\`
  void uploaded.data.files;

  const listed = await client.GET('/api/files', { params: { query: { username: 'ana', limit: '10' } } });
  if (!listed.data) throw new Error(\`files.list: \${listed.response.status}\`);
  const names: string[] = listed.data.files.map((entry) => entry.name);
  const sizes: number[] = listed.data.files.map((entry) => entry.size);
  void sizes;

  const downloaded = await client.GET('/api/files/download', {
    params: { query: { username: 'ana', file: 'hello.txt' } },
    parseAs: 'text',
  });
  if (downloaded.data === undefined) throw new Error(\`files.download: \${downloaded.response.status}\`);

  const missing = await client.GET('/api/user', { params: { query: { username: 'nobody' } } });
  if (!missing.error) throw new Error('user.get of nobody answered a user');
  const code: ErrorBody['code'] = missing.error.code;
  // @ts-expect-error -- not a code the API has
  const unknown: ErrorBody['code'] = 'no_such_code';
  void unknown;
  // @ts-expect-error -- user.get needs a username
  void client.GET('/api/user', { params: { query: {} } });

  return {
    version: described.data.info.version,
    user: created.data.user,
    uploaded: uploaded.data.file,
    names,
    total: listed.response.headers.get('X-Total-Count'),
    bytes: downloaded.data,
    missingStatus: missing.response.status,
    missing: { error: missing.error.error, code },
  };
}
`;

describe('a client generated from /api/openapi.json', () => {
  it('type-checks, and calls the daemon through openapi-fetch', async () => {
    const generated = await openapiTS(new URL(`${t.url}/api/openapi.json`), {
      silent: true,
      transform: (schema) => (schema.format === 'binary' ? BLOB : undefined),
    });
    await writeFile(path.join(dir, 'nimbus-api.ts'), astToString(generated));
    const clientFile = path.join(dir, 'client.ts');
    await writeFile(clientFile, CLIENT);

    const program = ts.createProgram([clientFile], {
      strict: true,
      noEmit: true,
      noUnusedLocals: true,
      target: ts.ScriptTarget.ES2022,
      module: ts.ModuleKind.NodeNext,
      moduleResolution: ts.ModuleResolutionKind.NodeNext,
      lib: ['lib.es2022.d.ts', 'lib.dom.d.ts'],
      types: [],
      skipLibCheck: true,
    });
    const problems = ts
      .getPreEmitDiagnostics(program)
      .map((d) => `${d.file ? path.basename(d.file.fileName) : ''}: ${ts.flattenDiagnosticMessageText(d.messageText, '\n')}`);
    expect(problems).toEqual([]);

    const { journey } = await import(pathToFileURL(clientFile).href);
    const result = await journey(t.url, t.key);
    expect(result.version).toBe((await t.api('GET', '/api/dash')).body.version);
    expect(result.user).toMatchObject({ username: 'ana', email: 'ana@example.com', role: 'user' });
    expect(result.uploaded).toMatchObject({ name: 'hello.txt', folder: null, size: 13, mimeType: 'text/plain' });
    expect(result.names).toEqual(['hello.txt']);
    expect(result.total).toBe('1');
    expect(result.bytes).toBe('hello, nimbus');
    expect(result.missingStatus).toBe(404);
    expect(result.missing).toEqual({ error: expect.any(String), code: 'user_not_found' });
  });
});
