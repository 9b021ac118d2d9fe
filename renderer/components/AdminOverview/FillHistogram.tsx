import { useTranslation } from 'react-i18next';
import { OVER_BUCKET, UNLIMITED_BUCKET } from './rankUsers';

/** Every user, counted by how full their storage is: one column per tenth of the quota, then over it, then unlimited. */
export function FillHistogram({ counts }: { counts: readonly number[] }) {
  const { t, i18n } = useTranslation();
  const number = new Intl.NumberFormat(i18n.language);
  const highest = Math.max(1, ...counts);
  const label = (bucket: number) =>
    bucket === OVER_BUCKET
      ? t('overview:histogram.over')
      : bucket === UNLIMITED_BUCKET
        ? t('overview:histogram.unlimited')
        : `${bucket * 10}–${bucket * 10 + 10}`;
  // On a phone a column is ~25 px: its lower bound only, and signs for "over" and "no quota".
  const shortLabel = (bucket: number) => (bucket === OVER_BUCKET ? '>100' : bucket === UNLIMITED_BUCKET ? '∞' : String(bucket * 10));
  const said = (bucket: number, count: number) =>
    bucket === OVER_BUCKET
      ? t('overview:histogram.overSaid', { count })
      : bucket === UNLIMITED_BUCKET
        ? t('overview:histogram.unlimitedSaid', { count })
        : t('overview:histogram.bucketSaid', { count, from: bucket * 10, to: bucket * 10 + 10 });
  return (
    <figure className="fill-histogram">
      <figcaption className="fill-histogram__caption">{t('overview:histogram.caption')}</figcaption>
      <ol className="fill-histogram__columns">
        {counts.map((count, bucket) => (
          <li
            key={bucket}
            className={`fill-histogram__column${bucket === OVER_BUCKET ? ' fill-histogram__column--over' : ''}${bucket === UNLIMITED_BUCKET ? ' fill-histogram__column--unlimited' : ''}${bucket === 9 ? ' fill-histogram__column--near' : ''}`}
            data-bucket={bucket}
          >
            <span className="visually-hidden">{said(bucket, count)}</span>
            <span className="fill-histogram__count" aria-hidden="true">
              {number.format(count)}
            </span>
            <span className="fill-histogram__track" aria-hidden="true">
              <span className="fill-histogram__bar" style={{ height: `${(count / highest) * 100}%` }} />
            </span>
            <span className="fill-histogram__label fill-histogram__label--long" aria-hidden="true">
              {label(bucket)}
            </span>
            <span className="fill-histogram__label fill-histogram__label--short" aria-hidden="true">
              {shortLabel(bucket)}
            </span>
          </li>
        ))}
      </ol>
    </figure>
  );
}
