import { useEffect } from 'react';
import i18next from 'i18next';
import { useTranslation } from 'react-i18next';
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
  const t = i18next.t;
  if (failed) return { text: t('overview:status.unreachable'), tone: 'bad' };
  if (!dash) return { text: t('overview:status.connecting'), tone: 'busy' };
  if (!dash.storage.available || dash.index.state === 'unavailable') return { text: t('overview:status.storageUnavailable'), tone: 'bad' };
  if (dash.index.state === 'scanning') return { text: t('overview:status.indexing'), tone: 'busy' };
  return { text: t('overview:status.running'), tone: 'ok' };
}

function liveText(live: LiveState): string {
  const t = i18next.t;
  switch (live) {
    case 'connecting':
      return t('overview:status.liveConnecting');
    case 'live':
      return t('overview:status.liveOn');
    case 'offline':
      return t('overview:status.liveReconnecting');
    case 'unsupported':
      return t('overview:status.liveUnsupported');
  }
}

/** For a caller who may not read the daemon's status (`dash.get` is for admins): the event stream says whether it is there. */
export function streamState(live: LiveState): { text: string; tone: Tone } {
  const t = i18next.t;
  if (live === 'offline') return { text: t('overview:status.unreachable'), tone: 'bad' };
  if (live === 'connecting') return { text: t('overview:status.connecting'), tone: 'busy' };
  return { text: t('overview:status.connected'), tone: 'ok' };
}

export function StatusBar({ summary, live }: { summary: string; live: LiveState }) {
  // Re-renders when the language changes; the words come from the functions above.
  useTranslation();
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
      <span className="statusbar__daemon" role="status" aria-label={`${state.text}, ${liveText(live)}`}>
        <span className={`statusbar__dot statusbar__dot--${state.tone}`} aria-hidden="true" />
        {state.text}
        <span className="statusbar__sep" aria-hidden="true">
          ·
        </span>
        {liveText(live)}
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
