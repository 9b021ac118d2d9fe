import { BadgeCheck, MailWarning } from 'lucide-react';
import { useTranslation } from 'react-i18next';

/** Whether a user's e-mail address is verified, as a small tag beside the address. */
export function VerifiedTag({ verified }: { verified: boolean }) {
  const { t } = useTranslation();
  return verified ? (
    <span className="tag tag--success">
      <BadgeCheck size={12} aria-hidden="true" />
      {t('admin:verified')}
    </span>
  ) : (
    <span className="tag tag--warning">
      <MailWarning size={12} aria-hidden="true" />
      {t('admin:notVerified')}
    </span>
  );
}
