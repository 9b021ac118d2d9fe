import { Trans, useTranslation } from 'react-i18next';
import type { User } from '../../../shared/types';
import { Dialog } from '../Dialog/Dialog';
import { DialogButtons, useActionThenClose } from '../Dialog/DialogButtons';
import './PromoteDialog.css';

/** The role that makes its users administrators (docs/accounts.md: a session of a user with role `admin`). */
export const ADMIN_ROLE = 'admin';

/** What an admin may do, each a line of the question (admin:promote.can.*). */
const POWERS = ['files', 'accounts', 'roles'] as const;

interface PromoteDialogProps {
  user: User;
  onConfirm: () => Promise<unknown>;
  onClose: () => void;
}

/**
 * Asks before giving a user the admin role: it names the user and what they could then do, so
 * a slip in the role list cannot hand over every account. Cancel has the focus: in Chromium an
 * arrow key on the closed list already picks a role, and the Enter that follows must not confirm.
 */
export function PromoteDialog({ user, onConfirm, onClose }: PromoteDialogProps) {
  const { t } = useTranslation();
  const { busy, run } = useActionThenClose(onClose);
  return (
    <Dialog
      title={t('admin:promote.title', { user: user.username })}
      onClose={onClose}
      initialFocus=".dialog__footer .button:not([data-confirm])"
      footer={
        <DialogButtons
          label={t('admin:promote.confirm')}
          tone="danger"
          disabled={busy}
          onCancel={onClose}
          onClick={() => void run(onConfirm)}
        />
      }
    >
      <p>
        <Trans i18nKey="admin:promote.lead" values={{ user: user.username }} components={{ strong: <strong /> }} />
      </p>
      <ul className="promote__powers">
        {POWERS.map((power) => (
          <li key={power}>{t(`admin:promote.can.${power}`)}</li>
        ))}
      </ul>
      <p>{t('admin:promote.undo')}</p>
    </Dialog>
  );
}
