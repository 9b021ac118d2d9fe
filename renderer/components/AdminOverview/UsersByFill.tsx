import { useDeferredValue, useId, useMemo, useState } from 'react';
import { useTranslation } from 'react-i18next';
import type { User } from '../../../shared/types';
import { useUsers } from '../../hooks/queries';
import { formatBytes, quotaLevel } from '../../lib/format';
import { FillHistogram } from './FillHistogram';
import { fillHistogram, fillOf, rankByFill, topMatching } from './rankUsers';

/** How many users the list shows: the fullest ones; the filter finds anyone else. */
export const SHOWN_USERS = 50;

/**
 * Every user's use of their role's quota: a histogram of all of them, and the fullest 50 (over
 * the quota, then nearest it) as bars, with a filter box. `user.all` is read once per change;
 * ranking 10,000 users is one sort per answer, and typing in the filter only scans the ranked
 * list, deferred so keystrokes stay quick.
 */
export function UsersByFill({ onOpenUser }: { onOpenUser?: (username: string) => void }) {
  const { t, i18n } = useTranslation();
  const users = useUsers();
  const [filter, setFilter] = useState('');
  const deferredFilter = useDeferredValue(filter);
  const ranked = useMemo(() => rankByFill(users.data ?? []), [users.data]);
  const histogram = useMemo(() => fillHistogram(users.data ?? []), [users.data]);
  const { shown, matching } = useMemo(() => topMatching(ranked, deferredFilter, SHOWN_USERS), [ranked, deferredFilter]);
  const headingId = useId();
  const number = new Intl.NumberFormat(i18n.language);

  return (
    <section className="overview-panel overview-users" aria-labelledby={headingId}>
      <h2 id={headingId} className="overview-panel__title">
        {t('overview:users.title')}
      </h2>
      {users.isPending ? (
        <p className="overview-panel__status" role="status">
          {t('overview:users.loading')}
        </p>
      ) : users.isError ? (
        <p className="overview-panel__status" role="status">
          {t('overview:users.failed')}
        </p>
      ) : (
        <>
          <FillHistogram counts={histogram} />
          <div className="overview-users__tools">
            <input
              type="search"
              className="input overview-users__filter"
              placeholder={t('overview:users.filterPlaceholder')}
              aria-label={t('overview:users.filter')}
              value={filter}
              onChange={(event) => setFilter(event.target.value)}
            />
            <span className="overview-users__count" role="status">
              {matching === 0
                ? t('overview:users.noMatch')
                : t('overview:users.showing', { shown: number.format(shown.length), count: matching, total: number.format(matching) })}
            </span>
          </div>
          <ol className="overview-users__list" aria-label={t('overview:users.listLabel')}>
            {shown.map((user) => (
              <UserFillRow key={user.username} user={user} onOpenUser={onOpenUser} />
            ))}
          </ol>
        </>
      )}
    </section>
  );
}

function UserFillRow({ user, onOpenUser }: { user: User; onOpenUser?: (username: string) => void }) {
  const { t, i18n } = useTranslation();
  const { usedBytes, maxBytes, overQuota } = user.usage;
  const level = quotaLevel(usedBytes, maxBytes, overQuota);
  const fill = fillOf(user);
  const percent = new Intl.NumberFormat(i18n.language, { style: 'percent', maximumFractionDigits: 0 });
  // Over the quota the bar is what is used and a mark shows where the quota ends.
  const barWidth = fill < 0 ? 0 : Math.min(1, fill);
  const mark = fill > 1 && Number.isFinite(fill) ? 1 / fill : null;
  const text =
    maxBytes < 0
      ? t('overview:users.usedUnlimited', { used: formatBytes(usedBytes) })
      : t('overview:users.used', {
          used: formatBytes(usedBytes),
          max: formatBytes(maxBytes),
          percent: Number.isFinite(fill) ? percent.format(fill) : '—',
        });
  return (
    <li className={`user-fill user-fill--${maxBytes < 0 ? 'unlimited' : level}`} data-username={user.username}>
      {onOpenUser ? (
        <button
          type="button"
          className="link-button user-fill__name"
          title={t('overview:users.open', { user: user.username })}
          onClick={() => onOpenUser(user.username)}
        >
          {user.username}
        </button>
      ) : (
        <span className="user-fill__name">{user.username}</span>
      )}
      <span className="user-fill__role">{user.role}</span>
      <span className="user-fill__track" aria-hidden="true">
        <span className="user-fill__bar" style={{ width: `${barWidth * 100}%` }} />
        {mark !== null ? <span className="user-fill__mark" style={{ left: `${mark * 100}%` }} /> : null}
      </span>
      <span className="user-fill__text">
        {text}
        {level === 'over' ? (
          <span className="tag tag--danger user-fill__tag">{t('overview:users.over')}</span>
        ) : level === 'near' && maxBytes >= 0 ? (
          <span className="tag tag--warning user-fill__tag">{t('overview:users.near')}</span>
        ) : null}
      </span>
    </li>
  );
}
