import { useState } from 'react';
import { ChevronDown, ChevronUp, CircleAlert, CircleCheck, LoaderCircle, RotateCcw, X } from 'lucide-react';
import { formatBytes } from '../../lib/format';
import { failureHeadline, type UploadItem } from '../../upload/UploadQueue';
import { useUploadItems, useUploadQueue } from '../../upload/uploadsContext';
import './UploadPanel.css';

function percentOf(item: UploadItem): number {
  if (item.size === 0) return item.status === 'done' ? 100 : 0;
  return Math.round((item.loaded / item.size) * 100);
}

function statusText(item: UploadItem): string {
  switch (item.status) {
    case 'queued':
      return 'Waiting…';
    case 'uploading':
      return `${percentOf(item)}% · ${formatBytes(item.loaded)} of ${formatBytes(item.size)}`;
    case 'done':
      return `Uploaded · ${formatBytes(item.size)}`;
    case 'cancelled':
      return 'Cancelled';
    case 'failed':
      return `${failureHeadline(item)}: ${item.error ?? ''}`;
  }
}

/** Every upload with its own progress bar and cancel button; failures keep the daemon's message. */
export function UploadPanel() {
  const items = useUploadItems();
  const queue = useUploadQueue();
  const [collapsed, setCollapsed] = useState(false);
  if (items.length === 0) return null;
  const running = items.filter((item) => item.status === 'uploading' || item.status === 'queued').length;
  const failed = items.filter((item) => item.status === 'failed').length;
  const done = items.filter((item) => item.status === 'done').length;
  const title =
    running > 0
      ? `Uploading ${running} ${running === 1 ? 'file' : 'files'}`
      : failed > 0
        ? `${failed} upload${failed === 1 ? '' : 's'} failed`
        : `${done} upload${done === 1 ? '' : 's'} complete`;

  return (
    <section className="uploads" aria-label="Uploads">
      <header className="uploads__header">
        <h2 className="uploads__title" aria-live="polite">
          {title}
        </h2>
        {running === 0 ? (
          <button type="button" className="button button--ghost uploads__clear" onClick={() => queue.clearFinished()}>
            Clear
          </button>
        ) : null}
        <button
          type="button"
          className="icon-button"
          aria-label={collapsed ? 'Show uploads' : 'Hide uploads'}
          aria-expanded={!collapsed}
          onClick={() => setCollapsed((value) => !value)}
        >
          {collapsed ? <ChevronUp size={16} aria-hidden="true" /> : <ChevronDown size={16} aria-hidden="true" />}
        </button>
      </header>
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
                <span className="upload__name" title={item.name}>
                  {item.name}
                </span>
                {item.status === 'queued' || item.status === 'uploading' ? (
                  <button
                    type="button"
                    className="icon-button"
                    aria-label={`Cancel upload of ${item.name}`}
                    onClick={() => queue.cancel(item.id)}
                  >
                    <X size={15} aria-hidden="true" />
                  </button>
                ) : null}
                {item.status === 'failed' && item.errorStatus === 409 ? (
                  <button type="button" className="button button--ghost upload__action" onClick={() => queue.retry(item.id, true)}>
                    Replace
                  </button>
                ) : null}
                {(item.status === 'failed' && item.errorStatus !== 409 && item.errorStatus !== 0) || item.status === 'cancelled' ? (
                  <button
                    type="button"
                    className="icon-button"
                    aria-label={`Retry upload of ${item.name}`}
                    onClick={() => queue.retry(item.id)}
                  >
                    <RotateCcw size={14} aria-hidden="true" />
                  </button>
                ) : null}
                {item.status === 'done' || item.status === 'failed' || item.status === 'cancelled' ? (
                  <button type="button" className="icon-button" aria-label={`Dismiss ${item.name}`} onClick={() => queue.dismiss(item.id)}>
                    <X size={15} aria-hidden="true" />
                  </button>
                ) : null}
              </div>
              <div
                className="upload__bar"
                role="progressbar"
                aria-label={`Upload of ${item.name}`}
                aria-valuemin={0}
                aria-valuemax={100}
                aria-valuenow={percentOf(item)}
                aria-valuetext={statusText(item)}
              >
                <div className="upload__fill" style={{ width: `${percentOf(item)}%` }} />
              </div>
              <div className="upload__status" role={item.status === 'failed' ? 'alert' : undefined}>
                {statusText(item)}
              </div>
            </li>
          ))}
        </ul>
      )}
    </section>
  );
}
