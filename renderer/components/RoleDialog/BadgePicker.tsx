import { useId, useRef, useState, type ChangeEvent } from 'react';
import { Upload } from 'lucide-react';
import { useTranslation } from 'react-i18next';
import { BADGE_UPLOAD_MAX_BYTES, BUILT_IN_BADGE_NAMES } from '../../../shared/badges';
import { checkBadgeUrl } from '../../../shared/validation';
import { errorMessage } from '../../api/client';
import { formatBytes } from '../../lib/format';
import { useClient } from '../Session/sessionContext';
import { BadgePreview } from './BadgePreview';
import type { BadgeDraft, BadgeKind } from './badgeChoice';

interface BadgePickerProps {
  draft: BadgeDraft;
  onChange: (draft: BadgeDraft) => void;
  /** What is wrong with the choice (a typed address that is no URL, no picture yet), once it matters. */
  error: string | null;
}

/**
 * The badge as one group of radio buttons: none, each built-in badge (a row of pictures served by
 * the daemon), a picture to upload, or an address. Only an address loads an image from another host.
 */
export function BadgePicker({ draft, onChange, error }: BadgePickerProps) {
  const { t } = useTranslation();
  const client = useClient();
  const name = useId();
  const fileInput = useRef<HTMLInputElement>(null);
  const [uploading, setUploading] = useState(false);
  const [uploadError, setUploadError] = useState<string | null>(null);
  const own = (path: string) => `${client.connection.baseUrl}${path}`;
  const pick = (kind: BadgeKind, change: Partial<BadgeDraft> = {}) => onChange({ ...draft, ...change, kind });

  async function upload(event: ChangeEvent<HTMLInputElement>) {
    const picture = event.target.files?.[0];
    event.target.value = ''; // the same file chosen again is a change too
    if (!picture) return;
    pick('uploaded');
    // Said at once, without sending what the daemon would refuse.
    if (picture.size > BADGE_UPLOAD_MAX_BYTES) {
      setUploadError(t('admin:badgePicker.tooLarge', { size: formatBytes(picture.size) }));
      return;
    }
    setUploading(true);
    setUploadError(null);
    try {
      const { badge } = await client.uploadBadge(picture);
      pick('uploaded', { uploaded: badge });
    } catch (failure) {
      setUploadError(errorMessage(failure));
    } finally {
      setUploading(false);
    }
  }

  const note = uploadError ?? error;
  return (
    <fieldset className="field badge-picker">
      <legend className="field__label">{t('admin:badgePicker.legend')}</legend>
      <label className="badge-picker__option">
        <input type="radio" name={name} checked={draft.kind === 'none'} onChange={() => pick('none')} />
        {t('admin:badgePicker.none')}
      </label>
      <div className="badge-picker__tiles">
        {BUILT_IN_BADGE_NAMES.map((badge) => {
          const label = t('admin:badgePicker.builtIn', { name: t(`admin:badgePicker.names.${badge}`) });
          return (
            <label key={badge} className="badge-tile" title={label}>
              <input
                type="radio"
                name={name}
                className="badge-tile__input"
                aria-label={label}
                checked={draft.kind === 'builtIn' && draft.builtIn === badge}
                onChange={() => pick('builtIn', { builtIn: badge })}
              />
              <img src={own(`/badges/${badge}.svg`)} alt="" width={28} height={28} />
            </label>
          );
        })}
      </div>
      <div className="badge-picker__option">
        <label className="badge-picker__option">
          <input type="radio" name={name} checked={draft.kind === 'uploaded'} onChange={() => pick('uploaded')} />
          {t('admin:badgePicker.upload')}
        </label>
        <button type="button" className="button badge-picker__choose" disabled={uploading} onClick={() => fileInput.current?.click()}>
          <Upload size={14} aria-hidden="true" />
          {uploading
            ? t('admin:badgePicker.uploading')
            : draft.uploaded
              ? t('admin:badgePicker.chooseAnother')
              : t('admin:badgePicker.choose')}
        </button>
        {draft.uploaded ? (
          <img
            className="badge-picker__uploaded"
            src={own(draft.uploaded)}
            alt={t('admin:badgePicker.uploadedAlt')}
            width={28}
            height={28}
          />
        ) : null}
        <input
          ref={fileInput}
          type="file"
          className="visually-hidden"
          tabIndex={-1}
          aria-label={t('admin:badgePicker.upload')}
          accept="image/png,image/jpeg,image/webp"
          onChange={(event) => void upload(event)}
        />
      </div>
      <label className="badge-picker__option">
        <input type="radio" name={name} checked={draft.kind === 'url'} onChange={() => pick('url')} />
        {t('admin:badgePicker.url')}
      </label>
      <div className="badge-picker__url">
        {/* Always there: typing an address picks it. */}
        <input
          className="input"
          type="url"
          aria-label={t('admin:roleDialog.badge')}
          placeholder="https://example.com/badge.png"
          spellCheck={false}
          value={draft.url}
          aria-invalid={draft.kind === 'url' && error ? true : undefined}
          onChange={(event) => pick('url', { url: event.target.value })}
        />
        {draft.kind === 'url' ? <BadgePreview url={draft.url} valid={error === null && checkBadgeUrl(draft.url).ok} /> : null}
      </div>
      <p className={note ? 'field__error' : 'field__hint'} role={note ? 'alert' : undefined}>
        {note ?? (draft.kind === 'url' ? t('admin:badgePicker.urlHint') : t('admin:badgePicker.uploadHint'))}
      </p>
    </fieldset>
  );
}
