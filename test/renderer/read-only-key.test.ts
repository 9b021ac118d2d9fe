import { describe, expect, it } from 'vitest';
import { actionsOn } from '../../renderer/components/FileBrowser/fileActions';

const ids = (surface: 'toolbar' | 'menu', canWrite: boolean) => actionsOn(surface, canWrite).map((action) => action.id);

describe('file actions for a caller who may only read (a `read` key)', () => {
  it('keeps the reading actions and leaves out every one that writes, on both surfaces', () => {
    expect(ids('menu', false)).toEqual(['open', 'openFolder', 'download', 'versions']);
    expect(ids('toolbar', false)).toEqual(['openFolder', 'download', 'versions', 'reveal']);
  });

  it('offers a writer every action, as before', () => {
    expect(ids('menu', true)).toEqual(expect.arrayContaining(['edit', 'rename', 'move', 'copy', 'share', 'uploadLink', 'delete']));
    expect(ids('toolbar', true)).toEqual(expect.arrayContaining(['rename', 'move', 'copy', 'share', 'uploadLink', 'delete']));
  });
});
