/** GET /api/openapi.json: OpenAPI 3.1, generated from the shared endpoint table so it lists every endpoint. */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ENDPOINTS } from '../../shared/endpoints.js';
import { startTestDaemon, type TestDaemon } from '../helpers/daemon.js';

describe('the OpenAPI document', () => {
  let t: TestDaemon;
  // eslint-disable-next-line @typescript-eslint/no-explicit-any -- an arbitrary JSON document
  let doc: any;
  beforeAll(async () => {
    t = await startTestDaemon();
    const res = await t.api('GET', '/api/openapi.json');
    expect(res.status).toBe(200);
    expect(res.headers.get('Content-Type')).toMatch(/^application\/json/);
    doc = res.body;
  });
  afterAll(() => t.close());

  it('is OpenAPI 3.1 with the daemon’s version and both ways of sending the key', async () => {
    expect(doc.openapi).toMatch(/^3\.1\.\d+$/);
    expect(doc.info).toMatchObject({ title: expect.any(String), version: (await t.api('GET', '/api/dash')).body.version });
    expect(doc.components.securitySchemes.apiKey).toEqual({ type: 'apiKey', in: 'header', name: 'API-Key' });
    expect(doc.components.securitySchemes.bearer).toMatchObject({ type: 'http', scheme: 'bearer' });
  });

  it.each(ENDPOINTS.map((e) => [e.method, e.path, e] as const))(
    'lists %s %s with its parameters and statuses',
    (method, path, endpoint) => {
      const op = doc.paths[path]?.[method.toLowerCase()];
      expect(op, `${method} ${path}`).toBeDefined();
      expect(op.operationId).toBe(endpoint.id);
      const names = op.parameters.map((p: { name: string }) => p.name);
      for (const [name, spec] of Object.entries(endpoint.params)) {
        const param = op.parameters.find((p: { name: string }) => p.name === name);
        // A password (and whatever the auth API takes) is in the request body instead (the test below).
        if (!param) expect(op.requestBody.content['application/json'].schema.properties[name], name).toBeDefined();
        else expect(param, name).toMatchObject({ in: spec.in ?? 'query', required: spec.required });
      }
      if (endpoint.paged) expect(names).toEqual(expect.arrayContaining(['limit', 'offset']));
      for (const status of [endpoint.success, ...endpoint.errors])
        expect(op.responses[String(status)], `${endpoint.id} ${status}`).toBeDefined();
      if (endpoint.audience !== 'public') {
        expect(op.responses['401']).toBeDefined();
        expect(op.security.length).toBeGreaterThan(0);
      } else expect(op.security).toEqual([]);
    },
  );

  it('declares each {name} of a path as a path parameter, and no other', () => {
    for (const endpoint of ENDPOINTS) {
      const inPath = [...endpoint.path.matchAll(/\{(\w+)\}/g)].map((m) => m[1]);
      const declared = Object.entries(endpoint.params)
        .filter(([, spec]) => spec.in === 'path')
        .map(([name]) => name);
      expect(declared, endpoint.id).toEqual(inPath);
      const op = doc.paths[endpoint.path][endpoint.method.toLowerCase()];
      expect(op.parameters.filter((p: { in: string }) => p.in === 'path').map((p: { name: string }) => p.name)).toEqual(inPath);
    }
  });

  it('lists nothing that is not in the table', () => {
    const listed = Object.entries(doc.paths).flatMap(([path, ops]) => Object.keys(ops as object).map((m) => `${m.toUpperCase()} ${path}`));
    expect(listed.sort()).toEqual(ENDPOINTS.map((e) => `${e.method} ${e.path}`).sort());
  });

  it('names one code for a one-time link that is unknown, used or expired (reset and verification alike)', () => {
    const codes: string[] = doc.components.schemas.Error.properties.code.enum;
    expect(codes).toContain('invalid_token');
    expect(codes).not.toContain('token_invalid');
  });

  it('is public: it holds no secret, and a client generator needs it before it has a key', async () => {
    const res = await t.api('GET', '/api/openapi.json', {}, { key: null });
    expect(res.status).toBe(200);
    expect(res.body.paths['/api/openapi.json'].get['x-audience']).toBe('public');
  });

  it('describes each record once, in components, and refers to it', () => {
    expect(Object.keys(doc.components.schemas)).toEqual(
      expect.arrayContaining(['Error', 'User', 'Role', 'Folder', 'FileEntry', 'ShareInfo']),
    );
    expect(doc.paths['/api/user'].get.responses['200'].content['application/json'].schema).toEqual({ $ref: '#/components/schemas/User' });
    expect(doc.paths['/api/user'].get.responses['404'].content['application/json'].schema).toEqual({ $ref: '#/components/schemas/Error' });
  });

  it('puts passwords in the request body, never in the query string', () => {
    for (const endpoint of ENDPOINTS) {
      const op = doc.paths[endpoint.path][endpoint.method.toLowerCase()];
      for (const [name, spec] of Object.entries(endpoint.params)) {
        if (spec.kind !== 'secret') continue;
        expect(
          op.parameters.map((p: { name: string }) => p.name),
          `${endpoint.id} ${name}`,
        ).not.toContain(name);
        expect(op.requestBody.content['application/json'].schema.properties[name], `${endpoint.id} ${name}`).toBeDefined();
      }
    }
  });

  it('is served to a read key', async () => {
    const key = (await t.api('POST', '/api/keys/create', { label: 'reader', scope: 'read' })).body.key as string;
    expect((await t.api('GET', '/api/openapi.json', {}, { key })).status).toBe(200);
  });
});
