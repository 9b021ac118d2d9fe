import { useId } from 'react';
import { Mail, Pencil, Trash2 } from 'lucide-react';
import { useTranslation } from 'react-i18next';
import type { Role, User } from '../../../shared/types';
import { Avatar } from '../Avatar/Avatar';
import { QuotaBar } from '../QuotaBar/QuotaBar';
import { RoleBadge } from '../RoleBadge/RoleBadge';
import { useCanWrite } from '../Session/sessionContext';
import { StorageUsage } from '../StorageUsage/StorageUsage';
import { VerifiedTag } from '../VerifiedTag/VerifiedTag';
import './UserHeader.css';

interface UserHeaderProps {
  user: User;
  roles: readonly Role[];
  onVerify: () => void;
  /** An admin's controls; without them (a person's own storage) the role is shown, not chosen. */
  onChangeRole?: (role: string) => void;
  onEdit?: () => void;
  onDelete?: () => void;
  /**
   * Files, trash and free space (`usage.get`) instead of the plain quota bar: the admin's view
   * of a user. A person's own window shows their storage picture elsewhere, in full.
   */
  detailedUsage?: boolean;
}

/** Who the open storage belongs to, with what can be done to the account. */
export function UserHeader({ user, roles, onChangeRole, onVerify, onEdit, onDelete, detailedUsage = false }: UserHeaderProps) {
  const { t } = useTranslation();
  const roleId = useId();
  // A `read` key: say so where the missing Upload would be looked for, and offer no account change.
  const canWrite = useCanWrite();
  const badge = roles.find((role) => role.name === user.role)?.badge;
  const roleNames = roles.some((role) => role.name === user.role)
    ? roles.map((role) => role.name)
    : [user.role, ...roles.map((role) => role.name)];
  return (
    <header className="user-header">
      <Avatar name={user.username} size={42} />
      <div className="user-header__who">
        <h1 className="user-header__name">{user.username}</h1>
        <div className="user-header__meta">
          <span className="user-header__email">
            <Mail size={13} aria-hidden="true" className="user-header__email-icon" />
            <span className="user-header__email-text" title={user.email}>
              {user.email}
            </span>
          </span>
          <VerifiedTag verified={user.emailVerified} />
        </div>
      </div>
      <div className={`user-header__quota${detailedUsage ? ' user-header__quota--detailed' : ''}`}>
        {detailedUsage ? (
          <StorageUsage username={user.username} compact />
        ) : (
          <QuotaBar usage={user.usage} label={t('usage:quota.label', { user: user.username })} />
        )}
      </div>
      <div className="user-header__role">
        <RoleBadge role={user.role} src={badge} size={18} />
        {onChangeRole ? (
          <>
            <label htmlFor={roleId} className="visually-hidden">
              {t('admin:header.role')}
            </label>
            <select id={roleId} className="select" value={user.role} onChange={(event) => onChangeRole(event.target.value)}>
              {roleNames.map((name) => (
                <option key={name} value={name}>
                  {name}
                </option>
              ))}
            </select>
          </>
        ) : (
          <span className="tag" title={t('admin:header.yourRole')}>
            {user.role}
          </span>
        )}
      </div>
      <div className="user-header__actions">
        {!canWrite ? (
          <span className="tag" title={t('admin:header.readOnlyTitle')}>
            {t('admin:header.readOnly')}
          </span>
        ) : null}
        {canWrite && !user.emailVerified ? (
          <button type="button" className="button user-header__verify" title={t('admin:header.verify')} onClick={onVerify}>
            <Mail size={15} aria-hidden="true" />
            <span className="button__label">{t('admin:header.verify')}</span>
          </button>
        ) : null}
        {onEdit ? (
          <button type="button" className="icon-button" aria-label={t('admin:header.edit')} title={t('admin:header.edit')} onClick={onEdit}>
            <Pencil size={16} aria-hidden="true" />
          </button>
        ) : null}
        {onDelete ? (
          <button
            type="button"
            className="icon-button icon-button--danger"
            aria-label={t('admin:header.delete')}
            title={t('admin:header.delete')}
            onClick={onDelete}
          >
            <Trash2 size={16} aria-hidden="true" />
          </button>
        ) : null}
      </div>
    </header>
  );
}
