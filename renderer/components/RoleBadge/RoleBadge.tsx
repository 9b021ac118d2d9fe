import { useState } from 'react';
import { ShieldCheck } from 'lucide-react';
import { useTranslation } from 'react-i18next';
import './RoleBadge.css';

interface RoleBadgeProps {
  role: string;
  /** The role's badge URL; none ('' or undefined) shows nothing, and a broken image falls back to an icon. */
  src: string | undefined;
  size?: number;
}

/** A role's badge image, loaded from its http(s) URL without sending a referrer; nothing for a role without one. */
export function RoleBadge({ role, src, size = 16 }: RoleBadgeProps) {
  const { t } = useTranslation();
  const [failedSrc, setFailedSrc] = useState<string | null>(null);
  if (!src) return null;
  if (failedSrc === src) {
    return <ShieldCheck className="role-badge role-badge--fallback" size={size} role="img" aria-label={t('admin:badge', { role })} />;
  }
  return (
    <img
      className="role-badge"
      src={src}
      alt={t('admin:badge', { role })}
      width={size}
      height={size}
      referrerPolicy="no-referrer"
      loading="lazy"
      onError={() => setFailedSrc(src)}
    />
  );
}
