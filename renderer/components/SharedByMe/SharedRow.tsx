import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import { Check, Copy, Folder, Link2Off, Lock, SlidersHorizontal } from 'lucide-react';
import type { ShareInfo } from '../../../shared/types';
import { useFileActions } from '../../hooks/useFileActions';
import { copyText } from '../../lib/clipboard';
import { formatDate, formatFullDate, formatNumber } from '../../lib/format';
import { ShareDialog } from '../ShareDialog/ShareDialog';
import { ShareStateTag } from '../ShareDialog/ShareStateTag';

interface SharedRowProps {
  username: string;
  share: ShareInfo;
  onOpenFolder: (folder: string | null) => void;
}

/** "3 / 10", or "3" without a limit. */
const downloads = (share: ShareInfo) =>
  share.maxDownloads === null ? formatNumber(share.downloads) : `${formatNumber(share.downloads)} / ${formatNumber(share.maxDownloads)}`;

/** One file link: where the file is, its downloads, expiry and state; copy, its options (the share dialog), stop sharing. */
export function SharedRow({ username, share, onOpenFolder }: SharedRowProps) {
  const { t } = useTranslation();
  const actions = useFileActions(username, share.folder);
  const [copied, setCopied] = useState(false);
  const [busy, setBusy] = useState(false);
  const [options, setOptions] = useState(false);
  const name = share.file;
  const place = share.folder ?? t('share:page.root');
  const expires = share.expiresAt ? formatDate(share.expiresAt) : t('share:page.never');
  const unshare = async () => {
    setBusy(true);
    const done = await actions.unshare({ name });
    setBusy(false);
    return done;
  };
  return (
    <tr data-state={share.state}>
      <th scope="row" className="shared__name">
        <span className="shared__name-line">
          <span className="shared__name-text" title={name}>
            {name}
          </span>
          {share.hasPassword ? (
            <span className="shared__lock" title={t('share:page.hasPassword')}>
              <Lock size={13} aria-hidden="true" />
              <span className="visually-hidden">{t('share:page.hasPassword')}</span>
            </span>
          ) : null}
        </span>
        {/* On a phone the folder, downloads and expiry columns are hidden: they come under the name. */}
        <span className="shared__sub" aria-hidden="true">
          {place} · {downloads(share)} · {expires}
        </span>
      </th>
      <td className="shared__folder-cell">
        <button type="button" className="link-button shared__folder" onClick={() => onOpenFolder(share.folder)}>
          <Folder size={14} aria-hidden="true" />
          {place}
        </button>
      </td>
      <td className="shared__num shared__downloads">{downloads(share)}</td>
      <td className="shared__expires" title={share.expiresAt ? formatFullDate(share.expiresAt) : undefined}>
        {expires}
      </td>
      <td>
        <ShareStateTag state={share.state} />
      </td>
      <td>
        {/* A box in the cell, not a flex cell: the cell keeps the row's height and its rule. */}
        <div className="shared__actions">
          <button
            type="button"
            className="button"
            aria-label={t('share:copyLinkTo', { file: name })}
            onClick={async () => setCopied(await copyText(share.url))}
          >
            {copied ? <Check size={15} aria-hidden="true" /> : <Copy size={15} aria-hidden="true" />}
            <span className="shared__label">{copied ? t('share:copied') : t('share:copyLink')}</span>
          </button>
          <button type="button" className="button" aria-label={t('share:optionsFor', { file: name })} onClick={() => setOptions(true)}>
            <SlidersHorizontal size={15} aria-hidden="true" />
            <span className="shared__label">{t('share:options.open')}</span>
          </button>
          <button
            type="button"
            className="button button--ghost"
            aria-label={t('share:stopSharingFile', { file: name })}
            title={t('share:stopSharing')}
            disabled={busy}
            onClick={unshare}
          >
            <Link2Off size={15} aria-hidden="true" />
            <span className="shared__label">{t('share:stopSharing')}</span>
          </button>
          {options ? (
            <ShareDialog
              username={username}
              file={{ name, url: share.url }}
              copied={false}
              onCopy={copyText}
              onUnshare={async () => {
                if (await unshare()) setOptions(false);
              }}
              onClose={() => setOptions(false)}
            />
          ) : null}
        </div>
      </td>
    </tr>
  );
}
