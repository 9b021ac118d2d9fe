import { EventEmitter } from 'node:events';
import { describe, expect, it, vi } from 'vitest';
import { setupQuit, setupSingleInstance } from '../../main/lifecycle.js';

function fakeApp(hasLock = true) {
  return Object.assign(new EventEmitter(), {
    quit: vi.fn(),
    requestSingleInstanceLock: vi.fn(() => hasLock),
  });
}

/** Emits an app event with a preventable Event; says whether it was prevented. */
function emit(app: EventEmitter, name: string): boolean {
  let prevented = false;
  app.emit(name, { preventDefault: () => (prevented = true) });
  return prevented;
}

describe('setupSingleInstance', () => {
  it('lets the first instance run', () => {
    expect(setupSingleInstance(fakeApp(true) as never, vi.fn())).toBe(true);
  });

  it('tells a second instance to quit', () => {
    const show = vi.fn();
    expect(setupSingleInstance(fakeApp(false) as never, show)).toBe(false);
    expect(show).not.toHaveBeenCalled();
  });

  it('shows the first instance’s window when a second one is launched', () => {
    const app = fakeApp(true);
    const show = vi.fn();
    setupSingleInstance(app as never, show);
    app.emit('second-instance', {}, ['nimbus'], '/');
    expect(show).toHaveBeenCalledOnce();
  });
});

describe('setupQuit', () => {
  it('keeps running (in the tray) when the last window closes', () => {
    const app = fakeApp();
    setupQuit(
      app as never,
      vi.fn(async () => undefined),
    );
    app.emit('window-all-closed');
    expect(app.listenerCount('window-all-closed')).toBe(1);
    expect(app.quit).not.toHaveBeenCalled();
  });

  it('stops the daemon before quitting, then quits', async () => {
    const app = fakeApp();
    let finishClose!: () => void;
    const closeDaemon = vi.fn(() => new Promise<void>((resolve) => (finishClose = resolve)));
    setupQuit(app as never, closeDaemon);

    expect(emit(app, 'will-quit')).toBe(true);
    expect(closeDaemon).toHaveBeenCalledOnce();
    expect(app.quit).not.toHaveBeenCalled();

    finishClose();
    await vi.waitFor(() => expect(app.quit).toHaveBeenCalledOnce());
    // The second will-quit (from that quit) goes through.
    expect(emit(app, 'will-quit')).toBe(false);
    expect(closeDaemon).toHaveBeenCalledOnce();
  });

  it('closes the daemon once even if quit is asked for again meanwhile', () => {
    const app = fakeApp();
    const closeDaemon = vi.fn(() => new Promise<void>(() => undefined));
    setupQuit(app as never, closeDaemon);
    emit(app, 'will-quit');
    expect(emit(app, 'will-quit')).toBe(true);
    expect(closeDaemon).toHaveBeenCalledOnce();
  });

  it('quits anyway when stopping the daemon fails', async () => {
    const app = fakeApp();
    const error = vi.spyOn(console, 'error').mockImplementation(() => undefined);
    setupQuit(app as never, async () => {
      throw new Error('disk gone');
    });
    emit(app, 'will-quit');
    await vi.waitFor(() => expect(app.quit).toHaveBeenCalledOnce());
    expect(error).toHaveBeenCalledWith(expect.stringContaining('disk gone'));
    error.mockRestore();
  });

  it('quits anyway when the daemon does not stop in time', async () => {
    vi.useFakeTimers();
    try {
      const app = fakeApp();
      const error = vi.spyOn(console, 'error').mockImplementation(() => undefined);
      setupQuit(app as never, () => new Promise<void>(() => undefined), 1000);
      emit(app, 'will-quit');
      await vi.advanceTimersByTimeAsync(1000);
      expect(app.quit).toHaveBeenCalledOnce();
      error.mockRestore();
    } finally {
      vi.useRealTimers();
    }
  });
});
