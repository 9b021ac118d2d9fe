import { BadgeCheck, MailWarning } from 'lucide-react';

/** Whether a user's e-mail address is verified, as a small tag beside the address. */
export function VerifiedTag({ verified }: { verified: boolean }) {
  return verified ? (
    <span className="tag tag--success">
      <BadgeCheck size={12} aria-hidden="true" />
      Verified
    </span>
  ) : (
    <span className="tag tag--warning">
      <MailWarning size={12} aria-hidden="true" />
      Not verified
    </span>
  );
}
