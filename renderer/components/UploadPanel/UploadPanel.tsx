import { useState } from 'react';
import type { TFunction } from 'i18next';
import { useTranslation } from 'react-i18next';
import { ChevronDown, ChevronUp, CircleAlert, CircleCheck, LoaderCircle, RotateCcw, X } from 'lucide-react';
import { formatBytes } from '../../lib/format';
import type { UploadItem } from '../../upload/UploadQueue';
import { useUploadItems, useUploadQueue } from '../../upload/uploadsContext';
import './UploadPanel.css';

function percentOf(item: UploadItem): number {
  if (item.size === 0) return item.status === 'done' ? 100 : 0;
  return Math.round((item.loaded / item.size) * 100);
}

/** The batch as a whole: files done and bytes sent, of every upload still meant to happen (not failed or cancelled). */
function totalOf(items: readonly UploadItem[]) {
  const meant = items.filter((item) => item.status !== 'failed' && item.status !== 'cancelled');
  const size = meant.reduce((sum, item) => sum + item.size, 0);
  const loaded = meant.reduce((sum, item) => sum + (item.status === 'done' ? item.size : item.loaded), 0);
  const done = meant.filter((item) => item.status === 'done').length;
  const percent = size === 0 ? (done === meant.length ? 100 : 0) : Math.round((loaded / size) * 100);
  return { count: meant.length, done, size, loaded, percent };
}

/** failureHeadline's words (renderer/upload/UploadQueue.ts) in the UI's language. */
function headline(item: UploadItem, t: TFunction): string {
  switch (item.errorStatus) {
    case 507:
      return t('upload:headline.noSpace');
    case 409:
      return t('upload:headline.exists');
    case 413:
      return t('upload:headline.tooLarge');
    case 0:
      return item.badName ? t('upload:headline.badName') : t('upload:headline.failed');
    default:
      return t('upload:headline.failed');
  }
}

function statusText(item: UploadItem, t: TFunction): string {
  switch (item.status) {
    case 'queued':
      return t('upload:status.queued');
    case 'uploading':
      return t('upload:status.uploading', { percent: percentOf(item), loaded: formatBytes(item.loaded), size: formatBytes(item.size) });
    case 'done':
      return t('upload:status.done', { size: formatBytes(item.size) });
    case 'cancelled':
      return t('upload:status.cancelled');
    case 'failed':
      // Said once: the headline alone when the error adds nothing to it.
      return item.error ? t('upload:status.failed', { headline: headline(item, t), error: item.error }) : headline(item, t);
  }
}

/** Every upload with its own progress bar and cancel button; failures keep the daemon's message. */
export function UploadPanel() {
  const { t } = useTranslation();
  const items = useUploadItems();
  const queue = useUploadQueue();
  const [collapsed, setCollapsed] = useState(false);
  if (items.length === 0) return null;
  const running = items.filter((item) => item.status === 'uploading' || item.status === 'queued').length;
  const failed = items.filter((item) => item.status === 'failed').length;
  const done = items.filter((item) => item.status === 'done').length;
  const total = totalOf(items);
  const totalText = t('upload:total.text', {
    done: total.done,
    count: total.count,
    loaded: formatBytes(total.loaded),
    size: formatBytes(total.size),
  });
  const title =
    running > 0
      ? t('upload:title.running', { count: running })
      : failed > 0
        ? t('upload:title.failed', { count: failed })
        : t('upload:title.done', { count: done });

  return (
    <section className="uploads" aria-label={t('upload:panel')}>
      <header className="uploads__header">
        <h2 className="uploads__title" aria-live="polite">
          {title}
        </h2>
        {running === 0 ? (
          <button type="button" className="button button--ghost uploads__clear" onClick={() => queue.clearFinished()}>
            {t('upload:clear')}
          </button>
        ) : null}
        <button
          type="button"
          className="icon-button"
          aria-label={collapsed ? t('upload:show') : t('upload:hide')}
          aria-expanded={!collapsed}
          onClick={() => setCollapsed((value) => !value)}
        >
          {collapsed ? <ChevronUp size={16} aria-hidden="true" /> : <ChevronDown size={16} aria-hidden="true" />}
        </button>
      </header>
      {items.length > 1 && total.count > 0 ? (
        <div className="uploads__total">
          <div
            className="upload__bar"
            role="progressbar"
            aria-label={t('upload:total.label')}
            aria-valuemin={0}
            aria-valuemax={100}
            aria-valuenow={total.percent}
            aria-valuetext={totalText}
          >
            <div className="upload__fill" style={{ width: `${total.percent}%` }} />
          </div>
          <div className="upload__status">{totalText}</div>
        </div>
      ) : null}
      {collapsed ? null : (
        <ul className="uploads__list">
          {items.map((item) => (
            <li key={item.id} className={`upload upload--${item.status}`}>
              <div className="upload__line">
                <span className="upload__icon" aria-hidden="true">
                  {item.status === 'done' ? (
                    <CircleCheck size={16} />
                  ) : item.status === 'failed' ? (
                    <CircleAlert size={16} />
                  ) : item.status === 'uploading' ? (
                    <LoaderCircle size={16} className="spin" />
                  ) : null}
                </span>
                <span className="upload__name" title={item.folder === null ? item.name : `${item.folder}/${item.name}`}>
                  {item.name}
                </span>
                {item.folder === null ? null : <span className="upload__folder">{item.folder}</span>}
                {item.status === 'queued' || item.status === 'uploading' ? (
                  <button
                    type="button"
                    className="icon-button"
                    aria-label={t('upload:cancel', { file: item.name })}
                    onClick={() => queue.cancel(item.id)}
                  >
                    <X size={15} aria-hidden="true" />
                  </button>
                ) : null}
                {item.status === 'failed' && item.errorStatus === 409 ? (
                  <button type="button" className="button button--ghost upload__action" onClick={() => queue.retry(item.id, true)}>
                    {t('upload:replace')}
                  </button>
                ) : null}
                {(item.status === 'failed' && item.errorStatus !== 409 && item.errorStatus !== 0) || item.status === 'cancelled' ? (
                  <button
                    type="button"
                    className="icon-button"
                    aria-label={t('upload:retry', { file: item.name })}
                    onClick={() => queue.retry(item.id)}
                  >
                    <RotateCcw size={14} aria-hidden="true" />
                  </button>
                ) : null}
                {item.status === 'done' || item.status === 'failed' || item.status === 'cancelled' ? (
                  <button
                    type="button"
                    className="icon-button"
                    aria-label={t('upload:dismiss', { file: item.name })}
                    onClick={() => queue.dismiss(item.id)}
                  >
                    <X size={15} aria-hidden="true" />
                  </button>
                ) : null}
              </div>
              <div
                className="upload__bar"
                role="progressbar"
                aria-label={t('upload:progress', { file: item.name })}
                aria-valuemin={0}
                aria-valuemax={100}
                aria-valuenow={percentOf(item)}
                aria-valuetext={statusText(item, t)}
              >
                <div className="upload__fill" style={{ width: `${percentOf(item)}%` }} />
              </div>
              <div className="upload__status" role={item.status === 'failed' ? 'alert' : undefined}>
                {statusText(item, t)}
              </div>
            </li>
          ))}
        </ul>
      )}
    </section>
  );
}
