import { memo } from 'react';
import type { TFunction } from 'i18next';
import { useTranslation } from 'react-i18next';
import { MailWarning } from 'lucide-react';
import type { User } from '../../../shared/types';
import { quotaLevel } from '../../lib/format';
import { Avatar } from '../Avatar/Avatar';
import { QuotaBar, quotaText } from '../QuotaBar/QuotaBar';
import { RoleBadge } from '../RoleBadge/RoleBadge';

export interface UserRowProps {
  user: User;
  index: number;
  count: number;
  top: number;
  current: boolean;
  /** The list's one tab stop (roving tabindex). */
  tabbable: boolean;
  badge: string | undefined;
  onSelect: (username: string) => void;
  onFocusUser: (username: string) => void;
}

function describe(user: User, t: TFunction): string {
  const parts = [t('shell:userRow.role', { role: user.role }), quotaText(user.usage)];
  const level = quotaLevel(user.usage.usedBytes, user.usage.maxBytes, user.usage.overQuota);
  if (level === 'over') parts.push(t('shell:userRow.overQuota'));
  else if (level === 'near') parts.push(t('shell:userRow.almostFull'));
  if (!user.emailVerified) parts.push(t('shell:userRow.unverified'));
  return parts.join(', ');
}

/** One virtualised entry of the sidebar's user list. */
export const UserRow = memo(function UserRow({ user, index, count, top, current, tabbable, badge, onSelect, onFocusUser }: UserRowProps) {
  const { t } = useTranslation();
  const descId = `user-desc-${user.username}`;
  const nameId = `user-name-${user.username}`;
  return (
    <li
      className="sidebar__item"
      data-index={index}
      aria-setsize={count}
      aria-posinset={index + 1}
      style={{ transform: `translateY(${top}px)` }}
    >
      <button
        type="button"
        className={`sidebar__user${current ? ' is-current' : ''}`}
        aria-current={current ? 'page' : undefined}
        aria-labelledby={nameId}
        aria-describedby={descId}
        tabIndex={tabbable ? 0 : -1}
        onClick={() => onSelect(user.username)}
        onFocus={() => onFocusUser(user.username)}
      >
        <span className="sidebar__avatar-room" />
        <span className="sidebar__user-main">
          <span className="sidebar__user-line">
            <span id={nameId} className="sidebar__user-name">
              {user.username}
            </span>
            <RoleBadge role={user.role} src={badge} size={14} />
            {!user.emailVerified ? (
              <MailWarning className="sidebar__unverified" size={14} aria-hidden="true">
                <title>{t('shell:userRow.emailNotVerified')}</title>
              </MailWarning>
            ) : null}
          </span>
          <span className="sidebar__quota-room" />
        </span>
        <span id={descId} hidden>
          {describe(user, t)}
        </span>
      </button>
      {/* The avatar and quota are drawn over the button, outside it: the button's name is the
          username alone, and axe wants all its visible text (initials, quota) inside that name.
          The description already says the quota in words. */}
      <div className="sidebar__user-avatar" aria-hidden="true">
        <Avatar name={user.username} size={30} />
      </div>
      <div className="sidebar__user-quota" aria-hidden="true">
        <QuotaBar usage={user.usage} label={t('shell:userRow.storageUsedBy', { name: user.username })} />
      </div>
    </li>
  );
});
