import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import { Check, Copy, File, Folder, FolderOpen, Inbox, Link2Off, Lock, SlidersHorizontal, type LucideIcon } from 'lucide-react';
import type { ShareInfo, ShareKind } from '../../../shared/types';
import { useLinkActions } from '../../hooks/useLinkActions';
import { copyText } from '../../lib/clipboard';
import { formatDate, formatFullDate, formatNumber } from '../../lib/format';
import { linkName, linkPlace } from '../../lib/shareLinks';
import { ShareDialog } from '../ShareDialog/ShareDialog';
import { ShareStateTag } from '../ShareDialog/ShareStateTag';

interface SharedRowProps {
  username: string;
  share: ShareInfo;
  onOpenFolder: (folder: string | null) => void;
}

/** Each kind's icon (its shape, beside its word: never a colour alone) and the words of its row's buttons (`share:*`). */
const KIND: Record<ShareKind, { icon: LucideIcon; copy: string; options: string; stop: string }> = {
  file: { icon: File, copy: 'copyLinkTo', options: 'optionsFor', stop: 'stopSharingFile' },
  folder: { icon: FolderOpen, copy: 'copyFolderLinkTo', options: 'optionsForFolder', stop: 'stopSharingFolder' },
  upload: { icon: Inbox, copy: 'copyUploadLinkTo', options: 'optionsForUpload', stop: 'stopUploadLink' },
};

/** "3 / 10", or "3" without a limit; an upload link's are its uploads ("3 / 10 uploads"). */
function useUsesText() {
  const { t } = useTranslation();
  return (share: ShareInfo) => {
    const uses =
      share.maxDownloads === null
        ? formatNumber(share.downloads)
        : `${formatNumber(share.downloads)} / ${formatNumber(share.maxDownloads)}`;
    return share.kind === 'upload' ? t('share:page.uploads', { uses, count: share.maxDownloads ?? share.downloads }) : uses;
  };
}

/**
 * One link (a file's, a folder's or an upload link): what it is, where, its downloads (or
 * uploads), expiry and state; copy, its options (the share dialog), stop sharing.
 */
export function SharedRow({ username, share, onOpenFolder }: SharedRowProps) {
  const { t } = useTranslation();
  const links = useLinkActions(username);
  const usesText = useUsesText();
  const [copied, setCopied] = useState(false);
  const [busy, setBusy] = useState(false);
  const [options, setOptions] = useState(false);
  const look = KIND[share.kind] ?? KIND.file;
  const KindIcon = look.icon;
  const kindWord = t(`share:kind.${share.kind}`);
  const name = linkName(share);
  const folder = linkPlace(share);
  const place = folder ?? t('share:page.root');
  const expires = share.expiresAt ? formatDate(share.expiresAt) : t('share:page.never');
  const uses = usesText(share);
  const unshare = async () => {
    setBusy(true);
    const done = await links.unshare(share);
    setBusy(false);
    return done;
  };
  return (
    <tr data-state={share.state} data-kind={share.kind}>
      <th scope="row" className="shared__name">
        <span className="shared__name-line">
          <KindIcon size={15} className={`shared__kind-icon shared__kind-icon--${share.kind}`} aria-hidden="true" />
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
        {/* On a phone the kind, folder, downloads and expiry columns are hidden: they come under the name. */}
        <span className="shared__sub" aria-hidden="true">
          {kindWord} · {place} · {uses} · {expires}
        </span>
      </th>
      <td className="shared__kind">{kindWord}</td>
      <td className="shared__folder-cell">
        <button type="button" className="link-button shared__folder" onClick={() => onOpenFolder(folder)}>
          <Folder size={14} aria-hidden="true" />
          {place}
        </button>
      </td>
      <td className="shared__num shared__downloads">{uses}</td>
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
            aria-label={t(`share:${look.copy}`, { file: name })}
            onClick={async () => setCopied(await copyText(share.url))}
          >
            {copied ? <Check size={15} aria-hidden="true" /> : <Copy size={15} aria-hidden="true" />}
            <span className="shared__label">{copied ? t('share:copied') : t('share:copyLink')}</span>
          </button>
          <button type="button" className="button" aria-label={t(`share:${look.options}`, { file: name })} onClick={() => setOptions(true)}>
            <SlidersHorizontal size={15} aria-hidden="true" />
            <span className="shared__label">{t('share:options.open')}</span>
          </button>
          <button
            type="button"
            className="button button--ghost"
            aria-label={t(`share:${look.stop}`, { file: name })}
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
              link={share}
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
