import { useEffect, useMemo, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { Download } from 'lucide-react';
import type { FileEntry } from '../../../shared/types';
import { errorMessage } from '../../api/client';
import { linksAreDirect } from '../../api/links';
import { formatBytes, formatFullDate, formatModified } from '../../lib/format';
import { KIND_ICON, fileKind } from '../../lib/fileIcon';
import { saveBlob } from '../../lib/saveBlob';
import { useSession } from '../Session/sessionContext';
import { useToast } from '../Toasts/toastContext';
import type { PreviewKind } from './previewKind';
import { fetchTextHead, type TextHead } from './textHead';
import { useFileLink, usePreviewSource } from './usePreviewSource';

interface BodyProps {
  username: string;
  file: FileEntry;
}

/** The file itself, as its kind is best shown; a card when the browser cannot show it. */
export function PreviewBody({ username, file, kind }: BodyProps & { kind: PreviewKind | null }) {
  const [failed, setFailed] = useState(false);
  if (kind === null) return <FileCard username={username} file={file} reason="none" />;
  if (failed) return <FileCard username={username} file={file} reason="failed" />;
  if (kind === 'text') return <TextPreview username={username} file={file} />;
  return <MediaPreview username={username} file={file} kind={kind} onFail={() => setFailed(true)} />;
}

function MediaPreview({ username, file, kind, onFail }: BodyProps & { kind: Exclude<PreviewKind, 'text'>; onFail(): void }) {
  const { t } = useTranslation();
  const source = usePreviewSource(username, file);
  if (source.status === 'loading') return <Loading />;
  if (source.status === 'failed') return <FileCard username={username} file={file} reason="failed" detail={errorMessage(source.error)} />;
  const { src } = source;
  switch (kind) {
    case 'image':
      return <img className="preview__image" src={src} alt={file.name} onError={onFail} />;
    case 'pdf':
      // The browser's own PDF viewer, from the inline link (its CSP is the daemon's).
      return <iframe className="preview__frame" src={src} title={t('preview:pdfTitle', { name: file.name })} />;
    case 'video':
      // A plain src: the browser asks for ranges as the person seeks; nothing is held here.
      return (
        <video className="preview__video" src={src} controls preload="metadata" onError={onFail}>
          {t('preview:noMedia')}
        </video>
      );
    case 'audio':
      return (
        <div className="preview__audio">
          <AudioIcon file={file} />
          <audio src={src} controls preload="metadata" onError={onFail} aria-label={file.name}>
            {t('preview:noMedia')}
          </audio>
        </div>
      );
  }
}

function AudioIcon({ file }: { file: FileEntry }) {
  const Icon = KIND_ICON[fileKind(file.name, file.mimeType)];
  return <Icon size={72} strokeWidth={1.25} aria-hidden="true" className="preview__audio-icon" />;
}

type TextState = { status: 'loading' } | { status: 'ready'; head: TextHead } | { status: 'failed'; error: unknown };

function TextPreview({ username, file }: BodyProps) {
  const { t } = useTranslation();
  const { client } = useSession();
  const link = useFileLink(username, file, true);
  const [state, setState] = useState<{ link: string; value: TextState } | null>(null);

  useEffect(() => {
    const controller = new AbortController();
    fetchTextHead(client, link, controller.signal).then(
      (head) => setState({ link, value: { status: 'ready', head } }),
      (error: unknown) => {
        if (!controller.signal.aborted) setState({ link, value: { status: 'failed', error } });
      },
    );
    return () => controller.abort();
  }, [client, link]);

  const value: TextState = state?.link === link ? state.value : { status: 'loading' };
  const lines = useMemo(() => (value.status === 'ready' ? value.head.text.split(/\r\n|\r|\n/) : []), [value]);
  // The numbers are one block of text beside the lines (not an element per line): a MiB of
  // short lines is tens of thousands of them.
  const numbers = useMemo(() => lines.map((_, i) => i + 1).join('\n'), [lines]);

  if (value.status === 'loading') return <Loading />;
  if (value.status === 'failed') return <FileCard username={username} file={file} reason="failed" detail={errorMessage(value.error)} />;
  const { head } = value;
  return (
    <div className="preview__text-wrap">
      {head.shown < head.total ? (
        <p className="preview__notice" role="note">
          {t('preview:truncated', { shown: formatBytes(head.shown), total: formatBytes(head.total) })}
        </p>
      ) : null}
      {head.total === 0 ? (
        <p className="preview__notice">{t('preview:emptyFile')}</p>
      ) : (
        // Focusable, so a keyboard can scroll it; named, so a screen reader says what it is.
        <div className="preview__text" tabIndex={0} role="region" aria-label={t('preview:textLabel', { name: file.name })}>
          <pre className="preview__gutter" aria-hidden="true">
            {numbers}
          </pre>
          <pre className="preview__lines">{head.text}</pre>
        </div>
      )}
    </div>
  );
}

function Loading() {
  const { t } = useTranslation();
  return (
    <div className="preview__loading" role="status">
      {t('preview:loading')}
    </div>
  );
}

/** What a file that is not shown is: icon, name, size, date, and a way to have it. */
export function FileCard({ username, file, reason, detail }: BodyProps & { reason: 'none' | 'failed'; detail?: string }) {
  const { t } = useTranslation();
  const Icon = KIND_ICON[fileKind(file.name, file.mimeType)];
  return (
    <div className="preview__card">
      <Icon size={56} strokeWidth={1.25} aria-hidden="true" className="preview__card-icon" />
      <p className="preview__card-name">{file.name}</p>
      <dl className="preview__card-facts">
        <dt>{t('preview:size')}</dt>
        <dd>{formatBytes(file.size)}</dd>
        <dt>{t('preview:modified')}</dt>
        <dd title={formatFullDate(file.modifiedAt)}>{formatModified(file.modifiedAt)}</dd>
      </dl>
      <p className="preview__card-why">{reason === 'none' ? t('preview:noPreview') : t('preview:failed')}</p>
      {detail ? <p className="preview__card-why">{detail}</p> : null}
      <DownloadButton username={username} file={file} primary />
    </div>
  );
}

/** A plain link the browser downloads by itself; with a key held in the page, fetched with it. */
export function DownloadButton({ username, file, primary = false }: BodyProps & { primary?: boolean }) {
  const { t } = useTranslation();
  const session = useSession();
  const toast = useToast();
  const href = useFileLink(username, file, false);
  const className = primary ? 'button button--primary' : 'button';
  const label = t('preview:download');
  if (linksAreDirect(session)) {
    return (
      <a className={className} href={href} download={file.name} aria-label={t('preview:downloadNamed', { name: file.name })}>
        <Download size={16} aria-hidden="true" />
        <span className="preview__label">{label}</span>
      </a>
    );
  }
  return (
    <button
      type="button"
      className={className}
      aria-label={t('preview:downloadNamed', { name: file.name })}
      onClick={async () => {
        try {
          saveBlob(await session.client.download({ username, file: file.name, folder: file.folder ?? undefined }), file.name);
        } catch (error) {
          toast.error(t('preview:downloadFailed', { name: file.name }), errorMessage(error));
        }
      }}
    >
      <Download size={16} aria-hidden="true" />
      <span className="preview__label">{label}</span>
    </button>
  );
}
