import { useEffect } from 'react';
import { useTranslation } from 'react-i18next';
import { Link2 } from 'lucide-react';
import { useShares } from '../../hooks/queries';
import type { LiveState } from '../../hooks/useLiveEvents';
import { ActionsHeader } from '../ActionsHeader/ActionsHeader';
import { ListState } from '../ListState/ListState';
import { StatusBar } from '../StatusBar/StatusBar';
import { SharedRow } from './SharedRow';
import './SharedByMe.css';

interface SharedByMeProps {
  username: string;
  live: LiveState;
  /** Opens the folder (null: the root) holding a link's file or folder. */
  onOpenFolder: (folder: string | null) => void;
}

/**
 * A user's links of every kind (a file's, a folder's, an upload link), newest first, from
 * `shares.list` (one call, however deep the tree): each with its kind, downloads (an upload
 * link's uploads), expiry and state, to copy, change its options, or revoke.
 */
export function SharedByMe({ username, live, onOpenFolder }: SharedByMeProps) {
  const { t } = useTranslation();
  const shares = useShares(username);
  const links = shares.data ?? [];

  useEffect(() => {
    document.title = t('share:page.windowTitle');
  }, [t]);

  const body = (
    <ListState
      icon={Link2}
      loading={shares.isPending ? t('share:page.loading') : null}
      failed={shares.error && !shares.data ? { title: t('share:page.failed'), error: shares.error } : null}
      empty={links.length === 0 ? { title: t('share:page.emptyTitle'), text: t('share:page.emptyText') } : null}
    >
      <div className="list-scroll shared__scroll">
        <table className="list-table shared__table">
          <caption className="visually-hidden">{t('share:page.caption')}</caption>
          <thead>
            <tr>
              <th scope="col">{t('share:page.name')}</th>
              <th scope="col" className="shared__kind">
                {t('share:page.kind')}
              </th>
              <th scope="col" className="shared__folder-cell">
                {t('share:page.folder')}
              </th>
              <th scope="col" className="shared__num shared__downloads">
                {t('share:page.downloads')}
              </th>
              <th scope="col" className="shared__expires">
                {t('share:page.expires')}
              </th>
              <th scope="col">{t('share:page.state')}</th>
              <ActionsHeader label={t('share:page.actions')} />
            </tr>
          </thead>
          <tbody>
            {links.map((share) => (
              <SharedRow key={share.url} username={username} share={share} onOpenFolder={onOpenFolder} />
            ))}
          </tbody>
        </table>
      </div>
    </ListState>
  );

  return (
    <section className="shared" aria-labelledby="shared-title">
      <header className="page-header">
        <h1 id="shared-title">{t('share:page.title')}</h1>
        <p>{t('share:page.lead')}</p>
      </header>
      {body}
      <StatusBar summary={shares.isPending ? '' : t('share:page.count', { count: links.length })} live={live} />
    </section>
  );
}
