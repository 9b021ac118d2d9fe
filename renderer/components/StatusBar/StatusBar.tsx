import { useEffect } from 'react';
import type { DashInfo } from '../../../shared/types';
import type { LiveState } from '../../hooks/useLiveEvents';
import { useDash } from '../../hooks/queries';
import { useSession } from '../Session/sessionContext';
import './StatusBar.css';

type Tone = 'ok' | 'busy' | 'bad';

/**
 * What the daemon is doing, in words. `failed`: the last status request failed — then the
 * daemon is unreachable, whatever an older answer said.
 */
export function daemonState(dash: DashInfo | undefined, failed: boolean): { text: string; tone: Tone } {
  if (failed) return { text: 'Daemon unreachable', tone: 'bad' };
  if (!dash) return { text: 'Connecting…', tone: 'busy' };
  if (!dash.storage.available || dash.index.state === 'unavailable') return { text: 'Storage unavailable', tone: 'bad' };
  if (dash.index.state === 'scanning') return { text: 'Indexing storage…', tone: 'busy' };
  return { text: 'Daemon running', tone: 'ok' };
}

const LIVE_TEXT: Record<LiveState, string> = {
  connecting: 'connecting live updates…',
  live: 'live updates on',
  offline: 'live updates reconnecting…',
  unsupported: 'refreshes on focus',
};

/** For a caller who may not read the daemon's status (`dash.get` is for admins): the event stream says whether it is there. */
export function streamState(live: LiveState): { text: string; tone: Tone } {
  if (live === 'offline') return { text: 'Daemon unreachable', tone: 'bad' };
  if (live === 'connecting') return { text: 'Connecting…', tone: 'busy' };
  return { text: 'Connected', tone: 'ok' };
}

export function StatusBar({ summary, live }: { summary: string; live: LiveState }) {
  const { admin } = useSession().me;
  // A dropped event stream is the first sign the daemon went away: ask it at once, then often.
  const dash = useDash(live === 'offline', admin);
  const { refetch } = dash;
  useEffect(() => {
    if (live === 'offline' && admin) void refetch();
  }, [live, refetch, admin]);
  const state = admin ? daemonState(dash.data, dash.isError) : streamState(live);
  return (
    <footer className="statusbar">
      <span className="statusbar__summary" aria-live="polite">
        {summary}
      </span>
      <span className="statusbar__daemon" role="status" aria-label={`${state.text}, ${LIVE_TEXT[live]}`}>
        <span className={`statusbar__dot statusbar__dot--${state.tone}`} aria-hidden="true" />
        {state.text}
        <span className="statusbar__sep" aria-hidden="true">
          ·
        </span>
        {LIVE_TEXT[live]}
        {dash.data ? (
          <>
            <span className="statusbar__sep" aria-hidden="true">
              ·
            </span>
            v{dash.data.version}
          </>
        ) : null}
      </span>
    </footer>
  );
}
