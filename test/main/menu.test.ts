import { describe, expect, it, vi } from 'vitest';
import type { MenuItemConstructorOptions } from 'electron';

vi.mock('electron', () => import('./fakeElectron.js'));

const electron = await import('./fakeElectron.js');
const { buildAppMenuTemplate, setupAppMenu } = await import('../../main/menu.js');

function actions() {
  return { openStorageFolder: vi.fn(), openLogFolder: vi.fn(), openInBrowser: vi.fn(), copyApiKey: vi.fn(), quit: vi.fn() };
}

function roles(items: MenuItemConstructorOptions[]): string[] {
  return items.flatMap((item) => [...(item.role ? [item.role] : []), ...(Array.isArray(item.submenu) ? roles(item.submenu) : [])]);
}

function menu(template: MenuItemConstructorOptions[], label: string): MenuItemConstructorOptions[] {
  const submenu = template.find((item) => item.label === label)?.submenu;
  if (!Array.isArray(submenu)) throw new Error(`no menu ${label}`);
  return submenu;
}

describe.each(['linux', 'win32', 'darwin'] as const)('application menu on %s', (platform) => {
  const template = buildAppMenuTemplate(platform, actions());

  it('has the usual menus', () => {
    const labels = template.map((item) => item.label);
    expect(labels).toEqual(expect.arrayContaining(['File', 'Edit', 'View', 'Window', 'Help']));
  });

  it('has the standard editing commands, so text fields get Cut, Copy, Paste, Undo and Select All', () => {
    expect(roles(menu(template, 'Edit'))).toEqual(expect.arrayContaining(['undo', 'redo', 'cut', 'copy', 'paste', 'selectAll']));
  });

  it('has reload, zoom and full screen', () => {
    expect(roles(menu(template, 'View'))).toEqual(
      expect.arrayContaining(['reload', 'forceReload', 'resetZoom', 'zoomIn', 'zoomOut', 'togglefullscreen']),
    );
  });

  it('quits with Cmd/Ctrl+Q through the app’s quit path', () => {
    const acts = actions();
    const quit = buildAppMenuTemplate(platform, acts)
      .flatMap((item) => (Array.isArray(item.submenu) ? item.submenu : []))
      .find((item) => item.id === 'quit');
    expect(quit?.accelerator).toBe('CmdOrCtrl+Q');
    (quit?.click as () => void)();
    expect(acts.quit).toHaveBeenCalledOnce();
  });

  it('opens the storage folder with Cmd/Ctrl+Shift+O', () => {
    const acts = actions();
    const item = menu(buildAppMenuTemplate(platform, acts), 'File').find((i) => i.id === 'open-storage');
    expect(item?.accelerator).toBe('CmdOrCtrl+Shift+O');
    (item?.click as () => void)();
    expect(acts.openStorageFolder).toHaveBeenCalledOnce();
  });

  it('opens the log folder from File', () => {
    const acts = actions();
    const item = menu(buildAppMenuTemplate(platform, acts), 'File').find((i) => i.id === 'open-logs');
    expect(item?.label).toBe('Open Log Folder');
    (item?.click as () => void)();
    expect(acts.openLogFolder).toHaveBeenCalledOnce();
    expect(acts.openStorageFolder).not.toHaveBeenCalled();
  });

  it('closes the window with the platform’s shortcut (the close role)', () => {
    expect(roles(menu(template, 'File'))).toContain('close');
  });
});

describe('macOS specifics', () => {
  it('puts the app menu first, with Hide and Quit', () => {
    const [first] = buildAppMenuTemplate('darwin', actions());
    expect(first.label).toBe('Nimbus');
    expect(roles([first])).toEqual(expect.arrayContaining(['about', 'hide', 'hideOthers', 'services']));
  });

  it('does not put an app menu on Linux', () => {
    expect(buildAppMenuTemplate('linux', actions())[0].label).toBe('File');
  });
});

describe('setupAppMenu', () => {
  it('installs the menu as the application menu', () => {
    setupAppMenu(actions(), 'linux');
    expect(electron.Menu.setApplicationMenu).toHaveBeenCalledOnce();
    const installed = electron.Menu.setApplicationMenu.mock.calls[0][0] as InstanceType<typeof electron.FakeMenu>;
    expect(installed.template.map((i) => i.label)).toContain('Edit');
  });
});
