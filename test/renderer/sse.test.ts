import { describe, expect, it } from 'vitest';
import { keysForEvent, queryKeys } from '../../renderer/api/queryKeys';
import { SseParser, toChangeEvent } from '../../renderer/api/sse';

describe('SseParser', () => {
  it('assembles messages split across chunks at any point', () => {
    const text = 'event: file.added\ndata: {"type":"file.added","username":"ana","folder":null,"file":"a.txt"}\n\n';
    for (let cut = 1; cut < text.length; cut += 7) {
      const parser = new SseParser();
      const messages = [...parser.push(text.slice(0, cut)), ...parser.push(text.slice(cut))];
      expect(messages).toEqual([{ event: 'file.added', data: '{"type":"file.added","username":"ana","folder":null,"file":"a.txt"}' }]);
    }
  });

  it('handles CRLF and CR line ends, comments, and multi-line data', () => {
    const parser = new SseParser();
    expect(parser.push(': ping\r\n\r\nevent: x\r\ndata: a\r\ndata: b\r')).toEqual([]);
    expect(parser.push('\n\r\n')).toEqual([{ event: 'x', data: 'a\nb' }]);
    expect(parser.push('data:no-space\r\rdata: next\n\n')).toEqual([
      { event: 'message', data: 'no-space' },
      { event: 'message', data: 'next' },
    ]);
  });
});

describe('SseParser’s last event id', () => {
  it('is the id of the last completed message, an id-only block included, and holds until the next id', () => {
    const parser = new SseParser();
    expect(parser.lastEventId).toBeNull();
    parser.push(': connected\n\nretry: 2000\n\nid: e1-0\n\n');
    expect(parser.lastEventId).toBe('e1-0');
    parser.push('id: e1-7\nevent: file.added\ndata: {}\n\nevent: file.removed\ndata: {}\n\n');
    expect(parser.lastEventId).toBe('e1-7');
    // A message cut off before its end is not had: its id does not count yet.
    parser.push('id: e1-8\nevent: file.added\ndata: {}\n');
    expect(parser.lastEventId).toBe('e1-7');
    parser.push('\n');
    expect(parser.lastEventId).toBe('e1-8');
  });
});

describe('change events', () => {
  it('reads a change event and ignores anything else', () => {
    expect(
      toChangeEvent({ event: 'file.removed', data: '{"type":"file.removed","username":"ana","folder":"Photos","file":"a.jpg"}' }),
    ).toEqual({
      type: 'file.removed',
      username: 'ana',
      folder: 'Photos',
      file: 'a.jpg',
    });
    expect(toChangeEvent({ event: 'message', data: 'not json' })).toBeNull();
    expect(toChangeEvent({ event: 'hello', data: '{"type":"hello"}' })).toBeNull();
  });

  it('marks stale the listing it touched, the user’s folders and quota', () => {
    const keys = keysForEvent({ type: 'file.added', username: 'ana', folder: 'Photos', file: 'a.jpg' });
    expect(keys).toContainEqual(queryKeys.files('ana', 'Photos'));
    expect(keys).toContainEqual(queryKeys.folders('ana'));
    expect(keys).toContainEqual(queryKeys.users);
    expect(keysForEvent({ type: 'role.changed', username: null, folder: null, file: null })).toContainEqual(queryKeys.roles);
  });

  it('marks a user’s share links stale when a link changes, and when the files they follow are renamed, moved or deleted', () => {
    expect(keysForEvent({ type: 'share.changed', username: 'ana', folder: null, file: 'a.txt' })).toContainEqual(queryKeys.shares('ana'));
    expect(keysForEvent({ type: 'file.removed', username: 'ana', folder: 'Docs', file: 'a.txt' })).toContainEqual(queryKeys.shares('ana'));
    expect(keysForEvent({ type: 'folder.moved', username: 'ana', folder: 'x/b', from: 'a/b', file: null })).toContainEqual(
      queryKeys.shares('ana'),
    );
    expect(keysForEvent({ type: 'share.changed', username: null, folder: null, file: null })).toContainEqual(['shares']);
  });

  it('reads a folder move whole: its old path in from, both parents’ listings and every file listing of the user made stale', () => {
    const event = toChangeEvent({
      event: 'folder.moved',
      data: JSON.stringify({ type: 'folder.moved', username: 'ana', folder: 'x/b', from: 'a/b', file: null }),
    });
    expect(event).toEqual({ type: 'folder.moved', username: 'ana', folder: 'x/b', from: 'a/b', file: null });
    const keys = keysForEvent(event!);
    // The prefix covers the old parent's (`a`) and the new parent's (`x`) listings and those below the moved folder.
    expect(keys).toContainEqual(queryKeys.folders('ana'));
    expect(keys).toContainEqual(queryKeys.allFiles('ana'));
    expect(keys).toContainEqual(queryKeys.searches('ana'));
  });
});
