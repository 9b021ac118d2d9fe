import { useId } from 'react';
import { useTranslation } from 'react-i18next';
import type { UsageDetail } from '../../../shared/types';
import { formatBytes, quotaLevel } from '../../lib/format';
import { SegmentBar } from './SegmentBar';
import { kindSegments, quotaPicture, type Segment } from './usageSegments';
import { useUsage } from './useUsage';
import './StorageUsage.css';

interface StorageUsageProps {
  username: string;
  /** One bar and a line of text, for a header; the kinds are left out. */
  compact?: boolean;
}

/** A user's storage as pictures: files / trash / free against the quota, and the files' bytes by kind. */
export function StorageUsage({ username, compact = false }: StorageUsageProps) {
  const { t } = useTranslation();
  const usage = useUsage(username);
  const titleId = useId();
  if (!usage.data) {
    return (
      <section className={`storage-usage${compact ? ' storage-usage--compact' : ''}`} aria-label={t('usage:title')}>
        <p className="storage-usage__status" role="status">
          {usage.isError ? t('usage:failed') : t('usage:loading')}
        </p>
      </section>
    );
  }
  return (
    <section className={`storage-usage${compact ? ' storage-usage--compact' : ''}`} aria-labelledby={titleId}>
      {compact ? (
        <h2 id={titleId} className="visually-hidden">
          {t('usage:title')}
        </h2>
      ) : null}
      <QuotaPart usage={usage.data} titleId={compact ? null : titleId} compact={compact} />
      {compact ? null : <KindPart usage={usage.data} />}
    </section>
  );
}

function QuotaPart({ usage, titleId, compact }: { usage: UsageDetail; titleId: string | null; compact: boolean }) {
  const { t } = useTranslation();
  const picture = quotaPicture(usage);
  const level = quotaLevel(usage.usedBytes, usage.maxBytes, usage.overQuota);
  const used = formatBytes(usage.usedBytes);
  const max = formatBytes(usage.maxBytes);
  const summary = picture.unlimited ? t('usage:summaryUnlimited', { used }) : t('usage:summary', { used, max });
  const sizes = { files: formatBytes(usage.fileBytes), trash: formatBytes(usage.trashBytes), free: formatBytes(picture.freeBytes) };
  const label = picture.unlimited
    ? t('usage:barUnlimited', { ...sizes, used })
    : picture.overBy > 0
      ? t('usage:barOver', { ...sizes, max, over: formatBytes(picture.overBy) })
      : t('usage:bar', { ...sizes, max });
  return (
    <div className={`storage-usage__quota storage-usage--${level}`}>
      <div className="storage-usage__head">
        {titleId ? (
          <h2 id={titleId} className="storage-usage__title">
            {t('usage:title')}
          </h2>
        ) : null}
        <span className="storage-usage__summary">
          {summary}
          {picture.unlimited ? <span className="storage-usage__unlimited"> · {t('usage:unlimited')}</span> : null}
        </span>
      </div>
      <SegmentBar segments={picture.segments} label={label} mark={picture.quotaMark} markLabel={t('usage:quotaEnds', { max })} />
      {compact ? (
        // The one part a header's short line would otherwise leave unexplained.
        usage.trashBytes > 0 ? (
          <span className="storage-usage__trash-note">
            <span className="usage-legend__swatch usage-swatch usage-swatch--trash" aria-hidden="true" />
            {t('usage:inTrash', { size: sizes.trash })}
          </span>
        ) : null
      ) : (
        <Legend segments={picture.segments} name={(part) => t(`usage:parts.${part}`)} />
      )}
      {picture.overBy > 0 ? (
        <p className="storage-usage__alert">{t('usage:overBy', { size: formatBytes(picture.overBy) })}</p>
      ) : level === 'near' ? (
        <p className="storage-usage__alert">{t('usage:almostFull')}</p>
      ) : null}
    </div>
  );
}

function KindPart({ usage }: { usage: UsageDetail }) {
  const { t, i18n } = useTranslation();
  const segments = kindSegments(usage.byKind);
  const percent = new Intl.NumberFormat(i18n.language, { style: 'percent', maximumFractionDigits: 0 });
  const headingId = useId();
  const label = t('usage:kindsBar', {
    list: segments.map((segment) => `${t(`usage:kinds.${segment.name}`)} ${formatBytes(segment.bytes)}`).join(', '),
  });
  return (
    <div className="storage-usage__kinds">
      <div className="storage-usage__head">
        <h3 id={headingId} className="storage-usage__subtitle">
          {t('usage:byKind')}
        </h3>
        <span className="storage-usage__summary">{t('usage:fileCount', { count: usage.fileCount })}</span>
      </div>
      {usage.fileBytes > 0 ? (
        <>
          <SegmentBar segments={segments} label={label} />
          <Legend
            segments={segments}
            name={(kind) => t(`usage:kinds.${kind}`)}
            share={(segment) =>
              segment.bytes <= 0 ? null : segment.fraction < 0.005 ? `<${percent.format(0.01)}` : percent.format(segment.fraction)
            }
          />
        </>
      ) : (
        <p className="storage-usage__status">{t('usage:noFiles')}</p>
      )}
    </div>
  );
}

interface LegendProps<Name extends string> {
  segments: readonly Segment<Name>[];
  name: (part: Name) => string;
  share?: (segment: Segment<Name>) => string | null;
}

/** The bar's parts as text: a swatch with the part's pattern, its name and its size. */
function Legend<Name extends string>({ segments, name, share }: LegendProps<Name>) {
  return (
    <ul className="usage-legend">
      {segments.map((segment) => {
        const fraction = share?.(segment);
        return (
          <li key={segment.name} className="usage-legend__item" data-part={segment.name}>
            <span className={`usage-legend__swatch usage-swatch usage-swatch--${segment.name}`} aria-hidden="true" />
            <span className="usage-legend__name">{name(segment.name)}</span>
            <span className="usage-legend__value">{formatBytes(segment.bytes)}</span>
            {fraction ? <span className="usage-legend__share">{fraction}</span> : null}
          </li>
        );
      })}
    </ul>
  );
}
