// The explorer tells the desktop shell its language and theme (renderer/lib/shellAppearance.ts), at start and on each change.
import { afterEach, describe, expect, it, vi } from 'vitest';
import type { NimbusBridge } from '../../shared/ipc';
import { chooseLanguage } from '../../renderer/i18n';
import { applyTheme } from '../../renderer/lib/theme';
import { followAppearanceInShell } from '../../renderer/lib/shellAppearance';

afterEach(async () => {
  delete window.nimbus;
  await chooseLanguage('en');
  applyTheme('system');
  localStorage.clear();
});

describe('followAppearanceInShell', () => {
  it('says the language and the theme now and whenever they change', async () => {
    const setLanguage = vi.fn(async () => undefined);
    const setTheme = vi.fn(async () => undefined);
    window.nimbus = { setLanguage, setTheme } as unknown as NimbusBridge;
    await chooseLanguage('en');
    applyTheme('system');
    followAppearanceInShell();
    expect(setLanguage).toHaveBeenLastCalledWith('en');
    expect(setTheme).toHaveBeenLastCalledWith('system');
    await chooseLanguage('cs');
    expect(setLanguage).toHaveBeenLastCalledWith('cs');
    applyTheme('dark');
    expect(setTheme).toHaveBeenLastCalledWith('dark');
  });

  it('does nothing in a plain browser', () => {
    expect(() => followAppearanceInShell()).not.toThrow();
  });
});
