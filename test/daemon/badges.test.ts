/**
 * Default role badges come from the daemon itself (issue 10, item 4): an offline machine
 * must not reach for an external placeholder image on every page load.
 */
import { writeFile } from 'node:fs/promises';
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { emptyDb } from '../../daemon/store/schema.js';
import { onDisk } from '../helpers/backend.js';
import { readDb, startTestDaemon, type TestDaemon } from '../helpers/daemon.js';

const OLD_PLACEHOLDER = 'https://placehold.co/64x64/png?text=%20';

describe('built-in role badges', () => {
  let t: TestDaemon;
  beforeAll(async () => {
    t = await startTestDaemon();
  });
  afterAll(() => t.close());

  it('point at the daemon and serve an SVG image there', async () => {
    const roles = (await t.api('GET', '/api/role/all')).body as { name: string; badge: string }[];
    for (const name of ['user', 'admin']) {
      const badge = roles.find((role) => role.name === name)!.badge;
      expect(badge).toBe(`${t.url}/badges/${name}.svg`);
      const res = await fetch(badge);
      expect(res.status).toBe(200);
      expect(res.headers.get('content-type')).toMatch(/^image\/svg\+xml/);
      expect(await res.text()).toMatch(/^<svg [^>]*xmlns="http:\/\/www\.w3\.org\/2000\/svg"/);
    }
  });

  it('are stored as daemon paths, so they follow the daemon to another port', async () => {
    const db = await readDb(t);
    // In any order: the store keeps no order of records (PostgreSQL returns them by key).
    expect(db.roles.map((role: { badge: string }) => role.badge).sort()).toEqual(['/badges/admin.svg', '/badges/user.svg']);
  });

  it('keep pointing at the daemon when a client sends the absolute URL back with an edit', async () => {
    const res = await t.api('POST', '/api/role/edit', {
      name: 'user',
      newname: 'user',
      maxStorage: '200',
      badge: `${t.url}/badges/user.svg`,
    });
    expect(res.status).toBe(201);
    expect(res.body.role.badge).toBe(`${t.url}/badges/user.svg`);
    const db = await readDb(t);
    expect(db.roles.find((role: { name: string }) => role.name === 'user').badge).toBe('/badges/user.svg');
  });

  it('leave an external badge a person chose as it is', async () => {
    const res = await t.api('POST', '/api/role/create', { name: 'gold', maxStorage: '1', badge: 'https://example.com/gold.png' });
    expect(res.body.role.badge).toBe('https://example.com/gold.png');
  });

  it('answer 404 for a badge that does not exist', async () => {
    expect((await fetch(`${t.url}/badges/nobody.svg`)).status).toBe(404);
  });
});

// A db.json written by an older Nimbus: only an embedded daemon opens one.
onDisk(() => {
  describe('a store written before local badges', () => {
    let dataDir: string;
    let t: TestDaemon | undefined;
    beforeAll(async () => {
      dataDir = await mkdtemp(path.join(os.tmpdir(), 'nimbus-badges-'));
      const db = emptyDb();
      db.roles = [
        { name: 'user', maxStorage: 128, badge: OLD_PLACEHOLDER, builtIn: true },
        { name: 'admin', maxStorage: 256, badge: 'https://example.com/admin-choice.png', builtIn: true },
        { name: 'gold', maxStorage: 1, badge: OLD_PLACEHOLDER, builtIn: false },
      ];
      await writeFile(path.join(dataDir, 'db.json'), JSON.stringify(db));
      t = await startTestDaemon({ dataDir });
    });
    afterAll(async () => {
      await t?.close();
      await rm(dataDir, { recursive: true, force: true });
    });

    it('has the old placeholder of a built-in role replaced by the local badge on open, and nothing else', async () => {
      const roles = (await t!.api('GET', '/api/role/all')).body as { name: string; badge: string }[];
      expect(Object.fromEntries(roles.map((role) => [role.name, role.badge]))).toEqual({
        user: `${t!.url}/badges/user.svg`,
        admin: 'https://example.com/admin-choice.png',
        gold: OLD_PLACEHOLDER,
      });
      const db = await readDb(dataDir);
      expect(db.roles.find((role: { name: string }) => role.name === 'user').badge).toBe('/badges/user.svg');
    });
  });
});
