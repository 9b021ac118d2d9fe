import { useId, useState } from 'react';
import { Check, Copy, Link2Off } from 'lucide-react';
import { useTranslation } from 'react-i18next';
import { isLoopbackUrl, linkName, type LinkTarget } from '../../lib/shareLinks';
import { Dialog } from '../Dialog/Dialog';
import { useCanWrite } from '../Session/sessionContext';
import { LoopbackNotice } from './LoopbackNotice';
import { ShareOptions } from './ShareOptions';
import './ShareDialog.css';

/** What the dialog's title and lead say for each kind of link (`share:dialog.*`). */
const WORDS = {
  file: { title: 'title', lead: 'lead', link: 'link' },
  folder: { title: 'titleFolder', lead: 'leadFolder', link: 'link' },
  upload: { title: 'titleUpload', lead: 'leadUpload', link: 'linkUpload' },
} as const;

interface ShareDialogProps {
  username: string;
  /** The link: a file's, a folder's (its tree, read-only) or an upload link (a drop box into a folder). */
  link: LinkTarget;
  /** Whether the link reached the clipboard when the dialog opened. */
  copied: boolean;
  onCopy: (url: string) => Promise<boolean>;
  onUnshare: () => Promise<void>;
  onClose: () => void;
}

/**
 * Shows a link (a file's, a folder's or an upload link), copies it again, changes its options
 * (expiry, password, download or upload limit), or revokes it.
 */
export function ShareDialog({ username, link, copied: initiallyCopied, onCopy, onUnshare, onClose }: ShareDialogProps) {
  const { t } = useTranslation();
  const [copied, setCopied] = useState(initiallyCopied);
  const [busy, setBusy] = useState(false);
  const fieldId = useId();
  const { url, kind } = link;
  const name = linkName(link);
  const words = WORDS[kind] ?? WORDS.file;
  // A `read` key may show and copy a link, not change or revoke it (the daemon would refuse).
  const canWrite = useCanWrite();
  return (
    <Dialog
      title={t(`share:dialog.${words.title}`, { file: name })}
      onClose={onClose}
      width={560}
      initialFocus="[data-share-url]"
      footer={
        <>
          {canWrite ? (
            <button
              type="button"
              className="button button--ghost share__stop"
              disabled={busy}
              onClick={async () => {
                setBusy(true);
                await onUnshare();
                setBusy(false);
              }}
            >
              <Link2Off size={15} aria-hidden="true" />
              {t('share:stopSharing')}
            </button>
          ) : null}
          <span className="share__spacer" />
          <button type="button" className="button button--primary" onClick={onClose}>
            {t('share:dialog.done')}
          </button>
        </>
      }
    >
      <p className="share__lead">{t(`share:dialog.${words.lead}`, { file: name })}</p>
      <label className="field__label" htmlFor={fieldId}>
        {t(`share:dialog.${words.link}`)}
      </label>
      <div className="share__row">
        <input
          id={fieldId}
          data-share-url
          className="input share__url"
          readOnly
          value={url}
          onFocus={(event) => event.currentTarget.select()}
        />
        <button type="button" className="button" onClick={async () => setCopied(await onCopy(url))}>
          {copied ? <Check size={15} aria-hidden="true" /> : <Copy size={15} aria-hidden="true" />}
          {copied ? t('share:copied') : t('share:copyLink')}
        </button>
      </div>
      <p className="share__note" role="status">
        {copied ? t('share:dialog.onClipboard') : t('share:dialog.selectAndCopy')}
      </p>
      {isLoopbackUrl(url) ? <LoopbackNotice url={url} /> : null}
      {canWrite ? <ShareOptions username={username} url={url} kind={kind} /> : null}
    </Dialog>
  );
}
