import { useId } from 'react';
import { useTranslation } from 'react-i18next';
import { BUCKET_MS, BUCKETS, WINDOW_MS } from './activityLog';
import { eventInWords } from './eventWords';
import { useActivity } from './useActivity';

const CHART_HEIGHT = 48;

/** The event stream, live: events per 10 s over the last 10 minutes, and the latest 20 in words. */
export function ActivityPanel() {
  const { t, i18n } = useTranslation();
  const { log, now, listening } = useActivity();
  const headingId = useId();
  const counts = log.counts(now);
  const latest = log.latest();
  const total = counts.reduce((sum, count) => sum + count, 0);
  const busiest = Math.max(0, ...counts);
  const time = new Intl.DateTimeFormat(i18n.language, { timeStyle: 'medium' });
  const listeningSince = now - log.since < WINDOW_MS ? time.format(log.since) : null;
  const scale = Math.max(1, busiest);

  return (
    <section className="overview-panel overview-activity" aria-labelledby={headingId}>
      <div className="overview-panel__head">
        <h2 id={headingId} className="overview-panel__title">
          {t('overview:activity.title')}
        </h2>
        <span className={`overview-activity__live overview-activity__live--${listening ? 'on' : 'off'}`}>
          {listening ? t('overview:activity.live') : t('overview:activity.connecting')}
        </span>
      </div>
      <div className="overview-activity__chart" role="img" aria-label={t('overview:activity.chartSaid', { count: total, busiest })}>
        <svg viewBox={`0 0 ${BUCKETS} ${CHART_HEIGHT}`} preserveAspectRatio="none" aria-hidden="true" focusable="false">
          <line className="overview-activity__axis" x1={0} x2={BUCKETS} y1={CHART_HEIGHT - 0.5} y2={CHART_HEIGHT - 0.5} />
          {counts.map((count, i) =>
            count > 0 ? (
              <rect
                key={i}
                className="overview-activity__bar"
                x={i + 0.15}
                width={0.7}
                y={CHART_HEIGHT - Math.max(2, (count / scale) * CHART_HEIGHT)}
                height={Math.max(2, (count / scale) * CHART_HEIGHT)}
              />
            ) : null,
          )}
        </svg>
      </div>
      <div className="overview-activity__scale" aria-hidden="true">
        <span>{t('overview:activity.tenMinutesAgo')}</span>
        <span>{t('overview:activity.perBucket', { seconds: BUCKET_MS / 1000, busiest })}</span>
        <span>{t('overview:activity.now')}</span>
      </div>
      {listeningSince ? <p className="overview-panel__note">{t('overview:activity.since', { time: listeningSince })}</p> : null}
      <h3 className="overview-activity__subtitle">{t('overview:activity.latest')}</h3>
      {latest.length === 0 ? (
        <p className="overview-panel__status">{t('overview:activity.quiet')}</p>
      ) : (
        <ol className="overview-activity__feed" aria-live="off">
          {latest.map((entry) => (
            <li key={entry.id} className="overview-activity__event" data-type={entry.event.type}>
              <time className="overview-activity__time" dateTime={new Date(entry.at).toISOString()}>
                {time.format(entry.at)}
              </time>
              <span className="overview-activity__words">{eventInWords(entry.event, t)}</span>
            </li>
          ))}
        </ol>
      )}
    </section>
  );
}
