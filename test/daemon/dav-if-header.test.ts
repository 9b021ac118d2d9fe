/** The If header's parser (RFC 4918 §10.4): the RFC's own examples, litmus's headers, and what is malformed. */
import { describe, expect, it } from 'vitest';
import { parseIf } from '../../daemon/http/dav/if-header.js';
import { ApiError } from '../../daemon/errors.js';

const TOKEN = 'urn:uuid:181d4fae-7d8c-11d0-a765-00a0c91e6bf2';
const OTHER = 'urn:uuid:58f202ac-22cf-11d1-b12d-002035b29092';

describe('parseIf: RFC 4918 §10.4.6–10.4.11', () => {
  it('reads two untagged lists, a token and an entity tag in the first (§10.4.6)', () => {
    expect(parseIf(`(<${TOKEN}>\r\n ["I am an ETag"])\r\n (["I am another ETag"])`)).toEqual([
      {
        resource: null,
        conditions: [
          { not: false, token: TOKEN },
          { not: false, etag: '"I am an ETag"' },
        ],
      },
      { resource: null, conditions: [{ not: false, etag: '"I am another ETag"' }] },
    ]);
  });

  it('reads Not before a state token (§10.4.7)', () => {
    expect(parseIf(`(Not <${TOKEN}>\r\n <${OTHER}>)`)).toEqual([
      {
        resource: null,
        conditions: [
          { not: true, token: TOKEN },
          { not: false, token: OTHER },
        ],
      },
    ]);
  });

  it('reads the always-true list of Not <DAV:no-lock> (§10.4.8)', () => {
    expect(parseIf(`(<${TOKEN}>) (Not <DAV:no-lock>)`)).toEqual([
      { resource: null, conditions: [{ not: false, token: TOKEN }] },
      { resource: null, conditions: [{ not: true, token: 'DAV:no-lock' }] },
    ]);
  });

  it('reads a tagged list of a collection, as a COPY sends it (§10.4.9, §10.4.10)', () => {
    expect(parseIf(`<http://www.example.com/specs/>\r\n (<${TOKEN}>)`)).toEqual([
      { resource: 'http://www.example.com/specs/', conditions: [{ not: false, token: TOKEN }] },
    ]);
  });

  it('reads an entity tag against an unmapped URL (§10.4.11)', () => {
    expect(parseIf('<http://example.com/specs/rfc2518.doc> (["4217"])')).toEqual([
      { resource: 'http://example.com/specs/rfc2518.doc', conditions: [{ not: false, etag: '"4217"' }] },
    ]);
  });

  it('gives each list of a tag its resource, and a new tag its own', () => {
    expect(parseIf(`<http://a/x> (<${TOKEN}>) (<${OTHER}>) </y> ([W/"w1"])`)).toEqual([
      { resource: 'http://a/x', conditions: [{ not: false, token: TOKEN }] },
      { resource: 'http://a/x', conditions: [{ not: false, token: OTHER }] },
      { resource: '/y', conditions: [{ not: false, etag: 'W/"w1"' }] },
    ]);
  });
});

describe("parseIf: litmus's headers", () => {
  it('reads (<DAV:no-lock>)', () => {
    expect(parseIf('(<DAV:no-lock>)')).toEqual([{ resource: null, conditions: [{ not: false, token: 'DAV:no-lock' }] }]);
  });

  it('reads (Not <DAV:no-lock> [etag])', () => {
    expect(parseIf('(Not <DAV:no-lock> ["1a2b-3c"])')).toEqual([
      {
        resource: null,
        conditions: [
          { not: true, token: 'DAV:no-lock' },
          { not: false, etag: '"1a2b-3c"' },
        ],
      },
    ]);
  });

  it('reads a lock token and a fallback list, as its conditional PUTs send them', () => {
    expect(parseIf(`(<opaquelocktoken:foobar> ["e1"]) (Not <DAV:no-lock> ["e1"])`)).toEqual([
      {
        resource: null,
        conditions: [
          { not: false, token: 'opaquelocktoken:foobar' },
          { not: false, etag: '"e1"' },
        ],
      },
      {
        resource: null,
        conditions: [
          { not: true, token: 'DAV:no-lock' },
          { not: false, etag: '"e1"' },
        ],
      },
    ]);
  });

  it('reads a tagged list with an absolute URL and a port', () => {
    expect(parseIf(`<http://localhost:8080/dav/ana/litmus/lockme> (<${TOKEN}>)`)).toEqual([
      { resource: 'http://localhost:8080/dav/ana/litmus/lockme', conditions: [{ not: false, token: TOKEN }] },
    ]);
  });

  it('takes "not" in any case and no space after a tag', () => {
    expect(parseIf(`<http://h/a>(NOT<${TOKEN}>)`)).toEqual([{ resource: 'http://h/a', conditions: [{ not: true, token: TOKEN }] }]);
  });
});

describe('parseIf: malformed headers are a 400 bad_request', () => {
  const malformed = [
    '',
    '   ',
    'foo',
    '(',
    '()',
    `(<${TOKEN}>`,
    `(<${TOKEN})`,
    '<http://a/x>',
    `<http://a/x> <http://a/y> (<${TOKEN}>)`,
    `(<${TOKEN}>) <http://a/x> (<${OTHER}>)`,
    `<http://a/x> (<${TOKEN}>) (<${OTHER}>) (Not)`,
    '([unquoted])',
    '(["open)',
    '(<>)',
    '(<a b>)',
    `(Not Not <${TOKEN}>)`,
    `(<${TOKEN}>) junk`,
  ];
  for (const header of malformed) {
    it(`refuses ${JSON.stringify(header)}`, () => {
      let error: unknown;
      try {
        parseIf(header);
      } catch (err) {
        error = err;
      }
      expect(error).toBeInstanceOf(ApiError);
      expect((error as ApiError).status).toBe(400);
      expect((error as ApiError).code).toBe('bad_request');
    });
  }
});
