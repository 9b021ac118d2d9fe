import { useId } from 'react';
import { TriangleAlert } from 'lucide-react';
import { Trans, useTranslation } from 'react-i18next';

/**
 * Said when a link's address is this computer's own (127.0.0.1, localhost, [::1]): the link works
 * here only, and what makes it work for others (docs/sharing.md; the address is `NIMBUS_PUBLIC_URL`).
 */
export function LoopbackNotice({ url }: { url: string }) {
  const { t } = useTranslation();
  const titleId = useId();
  const host = new URL(url).host;
  return (
    <div className="share__loopback" role="note" aria-labelledby={titleId}>
      <TriangleAlert size={16} aria-hidden="true" className="share__loopback-icon" />
      <div>
        <p id={titleId} className="share__loopback-title">
          {t('share:loopback.title')}
        </p>
        <p className="share__loopback-text">
          <Trans i18nKey="share:loopback.text" values={{ host }} components={{ code: <code /> }} />
        </p>
      </div>
    </div>
  );
}
