import { useState } from 'react';
import { ImageOff } from 'lucide-react';
import { useTranslation } from 'react-i18next';

/** Loads the badge URL as the sidebar will, and says so when it cannot. */
export function BadgePreview({ url, valid }: { url: string; valid: boolean }) {
  const { t } = useTranslation();
  const [state, setState] = useState<{ url: string; status: 'loading' | 'loaded' | 'failed' }>({ url, status: 'loading' });
  const status = state.url === url ? state.status : 'loading';
  return (
    <div className="role-preview" aria-live="polite">
      {valid && status !== 'failed' ? (
        <img
          key={url}
          src={url}
          alt={t('admin:badgePreview.alt')}
          width={32}
          height={32}
          referrerPolicy="no-referrer"
          className="role-preview__img"
          onLoad={() => setState({ url, status: 'loaded' })}
          onError={() => setState({ url, status: 'failed' })}
        />
      ) : (
        <span className="role-preview__none" aria-hidden="true">
          {valid ? <ImageOff size={16} /> : null}
        </span>
      )}
      <span className="role-preview__label">
        {!valid
          ? t('admin:badgePreview.enterUrl')
          : status === 'failed'
            ? t('admin:badgePreview.failed')
            : status === 'loaded'
              ? t('admin:badgePreview.loaded')
              : t('admin:badgePreview.loading')}
      </span>
    </div>
  );
}
