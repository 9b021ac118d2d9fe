/** The shell's log: the console until main.ts hands it the daemon's logger, then that logger (tagged src: desktop). */
import { afterEach, describe, expect, it, vi } from 'vitest';
import pino from 'pino';
import { shellLog, useLogger } from '../../main/log.js';

afterEach(() => {
  useLogger(null);
  vi.restoreAllMocks();
});

describe('shellLog', () => {
  it('writes to the console while there is no daemon logger', () => {
    const warn = vi.spyOn(console, 'warn').mockImplementation(() => undefined);
    const error = vi.spyOn(console, 'error').mockImplementation(() => undefined);
    shellLog.warn('a warning');
    shellLog.error('an error');
    expect(warn).toHaveBeenCalledWith('a warning');
    expect(error).toHaveBeenCalledWith('an error');
  });

  it('writes to the daemon’s logger once it has one, tagged as the desktop shell, and to the console again after', () => {
    const lines: Record<string, unknown>[] = [];
    useLogger(pino({ base: null }, { write: (line: string) => void lines.push(JSON.parse(line) as Record<string, unknown>) }));
    const error = vi.spyOn(console, 'error').mockImplementation(() => undefined);
    shellLog.error('could not open the folder');
    shellLog.info('hello');
    expect(lines).toEqual([
      expect.objectContaining({ level: 50, src: 'desktop', msg: 'could not open the folder' }),
      expect.objectContaining({ level: 30, src: 'desktop', msg: 'hello' }),
    ]);
    expect(error).not.toHaveBeenCalled();
    useLogger(null);
    shellLog.error('after quit');
    expect(error).toHaveBeenCalledWith('after quit');
    expect(lines).toHaveLength(2);
  });
});
