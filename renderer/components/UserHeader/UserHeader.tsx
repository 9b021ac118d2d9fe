import { useId } from 'react';
import { Mail, Pencil, Trash2 } from 'lucide-react';
import type { Role, User } from '../../../shared/types';
import { Avatar } from '../Avatar/Avatar';
import { QuotaBar } from '../QuotaBar/QuotaBar';
import { RoleBadge } from '../RoleBadge/RoleBadge';
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
}

/** Who the open storage belongs to, with what can be done to the account. */
export function UserHeader({ user, roles, onChangeRole, onVerify, onEdit, onDelete }: UserHeaderProps) {
  const roleId = useId();
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
      <div className="user-header__quota">
        <QuotaBar usage={user.usage} label={`Storage used by ${user.username}`} />
      </div>
      <div className="user-header__role">
        <RoleBadge role={user.role} src={badge} size={18} />
        {onChangeRole ? (
          <>
            <label htmlFor={roleId} className="visually-hidden">
              Role
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
          <span className="tag" title="Your role">
            {user.role}
          </span>
        )}
      </div>
      <div className="user-header__actions">
        {!user.emailVerified ? (
          <button type="button" className="button user-header__verify" title="Send verification e-mail" onClick={onVerify}>
            <Mail size={15} aria-hidden="true" />
            <span className="button__label">Send verification e-mail</span>
          </button>
        ) : null}
        {onEdit ? (
          <button type="button" className="icon-button" aria-label="Edit user" title="Edit user" onClick={onEdit}>
            <Pencil size={16} aria-hidden="true" />
          </button>
        ) : null}
        {onDelete ? (
          <button type="button" className="icon-button icon-button--danger" aria-label="Delete user" title="Delete user" onClick={onDelete}>
            <Trash2 size={16} aria-hidden="true" />
          </button>
        ) : null}
      </div>
    </header>
  );
}
