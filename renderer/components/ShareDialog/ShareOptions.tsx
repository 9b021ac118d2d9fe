import { useId } from 'react';
import { useTranslation } from 'react-i18next';
import type { ShareInfo, ShareKind } from '../../../shared/types';
import { useShares } from '../../hooks/queries';
import { formatDateTime, formatFullDate } from '../../lib/format';
import { FormProblem } from '../SignIn/FormProblem';
import { ShareOptionsForm } from './ShareOptionsForm';
import { ShareStateTag } from './ShareStateTag';
import { GONE } from './useShareEdit';

/** "Downloads: 3 of 10", or "Downloads: 3" without a limit; an upload link's are its uploads ("Uploads: 3 of 10"). */
export function useDownloadsText() {
  const { t } = useTranslation();
  return (share: Pick<ShareInfo, 'kind' | 'downloads' | 'maxDownloads'>) => {
    const uses = share.kind === 'upload' ? 'uploads' : 'downloads';
    return share.maxDownloads === null
      ? t(`share:options.${uses}`, { n: share.downloads })
      : t(`share:options.${uses}Of`, { n: share.downloads, max: share.maxDownloads });
  };
}

/**
 * The "Link options" of one link (found in `shares.list` by its address): its downloads (or an
 * upload link's uploads) so far and state, then the form that changes its expiry, limit and password.
 */
export function ShareOptions({ username, url, kind }: { username: string; url: string; kind: ShareKind }) {
  const { t } = useTranslation();
  const titleId = useId();
  const shares = useShares(username);
  const downloadsText = useDownloadsText();
  const share = shares.data?.find((item) => item.url === url);

  let body;
  if (share) {
    body = (
      <>
        <p className="share-options__status">
          <ShareStateTag state={share.state} />
          <span>{downloadsText(share)}</span>
          {share.expiresAt ? (
            <span title={formatFullDate(share.expiresAt)}>
              {t(share.state === 'expired' ? 'share:options.expiredAt' : 'share:options.expiresAt', {
                date: formatDateTime(share.expiresAt),
              })}
            </span>
          ) : null}
        </p>
        {share.state !== 'active' ? (
          <p className="share-options__help">
            {t(`share:options.help.${share.state === 'exhausted' && share.kind === 'upload' ? 'exhaustedUploads' : share.state}`)}
          </p>
        ) : null}
        <ShareOptionsForm key={share.url} username={username} share={share} />
      </>
    );
  } else if (shares.isPending || shares.isFetching) {
    // A link made a moment ago is not in a list fetched before it: wait for the fresh one.
    body = (
      <p className="share-options__help" role="status">
        {t('share:options.loading')}
      </p>
    );
  } else {
    body = <FormProblem problem={shares.error ? t('share:options.loadFailed') : t(`share:options.${GONE[kind] ?? 'gone'}`)} />;
  }

  return (
    <section className="share-options" aria-labelledby={titleId}>
      <h3 id={titleId} className="share-options__title">
        {t('share:options.title')}
      </h3>
      {body}
    </section>
  );
}
