import i18next from 'i18next';
import { useTranslation } from 'react-i18next';
import type { Usage } from '../../../shared/types';
import { formatBytes, quotaLevel } from '../../lib/format';
import './QuotaBar.css';

/** "used / max" with a bar that turns amber near the limit and red over it. */
export function quotaText(usage: Usage): string {
  const used = formatBytes(usage.usedBytes);
  if (usage.maxBytes < 0) return i18next.t('usage:quota.unlimited', { used });
  return i18next.t('usage:quota.ofMax', { used, max: formatBytes(usage.maxBytes) });
}

export function QuotaBar({ usage, label, showText = true }: { usage: Usage; label: string; showText?: boolean }) {
  const { t } = useTranslation();
  const level = quotaLevel(usage.usedBytes, usage.maxBytes, usage.overQuota);
  const unlimited = usage.maxBytes < 0;
  const ratio = unlimited ? 0 : usage.maxBytes === 0 ? 1 : Math.min(1, usage.usedBytes / usage.maxBytes);
  const percent = Math.round(ratio * 100);
  return (
    <div className={`quota quota--${level}`}>
      <div
        className="quota__track"
        role="progressbar"
        aria-label={label}
        aria-valuemin={0}
        aria-valuemax={100}
        aria-valuenow={unlimited ? undefined : percent}
        aria-valuetext={
          level === 'over'
            ? t('usage:quota.saidOver', { text: quotaText(usage) })
            : level === 'near'
              ? t('usage:quota.saidNear', { text: quotaText(usage) })
              : quotaText(usage)
        }
      >
        <div className="quota__fill" style={{ width: `${Math.max(ratio * 100, usage.usedBytes > 0 ? 2 : 0)}%` }} />
      </div>
      {showText ? (
        <div className="quota__text">
          {quotaText(usage)}
          {level === 'over' ? t('usage:quota.over') : null}
        </div>
      ) : null}
    </div>
  );
}
