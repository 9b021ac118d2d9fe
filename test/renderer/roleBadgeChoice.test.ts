/** The role dialog's badge choice (issue 29): what a role's badge reads as, and what is sent back. */
import { describe, expect, it } from 'vitest';
import { badgeOf, checkDraft, draftOf } from '../../renderer/components/RoleDialog/badgeChoice';

const DAEMON = 'http://127.0.0.1:7878';

describe('draftOf', () => {
  it('reads no badge as None', () => {
    expect(draftOf('', [DAEMON]).kind).toBe('none');
    expect(draftOf(undefined, [DAEMON]).kind).toBe('none');
  });

  it('recognises the daemon’s own badges on its address, built-in and uploaded', () => {
    expect(draftOf(`${DAEMON}/badges/star.svg`, [DAEMON])).toMatchObject({ kind: 'builtIn', builtIn: 'star' });
    const path = `/badges/uploaded/${'a'.repeat(32)}.png`;
    expect(draftOf(`${DAEMON}${path}`, [DAEMON])).toMatchObject({ kind: 'uploaded', uploaded: path });
  });

  it('keeps the same paths on another host as an address the admin typed', () => {
    const elsewhere = 'https://example.com/badges/star.svg';
    expect(draftOf(elsewhere, [DAEMON])).toMatchObject({ kind: 'url', url: elsewhere });
    expect(draftOf(`${DAEMON}/badges/nobody.svg`, [DAEMON]).kind).toBe('url');
  });
});

describe('badgeOf and checkDraft', () => {
  const base = draftOf('', [DAEMON]);
  it('sends nothing for None, a path for the daemon’s badges, the URL as typed', () => {
    expect(badgeOf(base)).toBeUndefined();
    expect(badgeOf({ ...base, kind: 'builtIn', builtIn: 'heart' })).toBe('/badges/heart.svg');
    expect(badgeOf({ ...base, kind: 'url', url: 'https://example.com/b.png' })).toBe('https://example.com/b.png');
  });

  it('asks for a picture before an upload, and an http(s) URL for an address', () => {
    expect(checkDraft({ ...base, kind: 'uploaded' })).toEqual({ ok: false, message: 'no picture' });
    expect(checkDraft({ ...base, kind: 'url', url: 'ftp://example.com/b.png' }).ok).toBe(false);
    expect(checkDraft(base)).toEqual({ ok: true, value: undefined });
  });
});
