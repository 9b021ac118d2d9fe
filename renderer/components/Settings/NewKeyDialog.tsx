import { Trans, useTranslation } from 'react-i18next';
import { useId, useState } from 'react';
import { Check, Copy, TriangleAlert } from 'lucide-react';
import { copyText } from '../../lib/clipboard';
import { Dialog } from '../Dialog/Dialog';

/** A new key, shown this once: the daemon keeps only its hash. */
export function NewKeyDialog({ label, apiKey, onClose }: { label: string; apiKey: string; onClose: () => void }) {
  const { t } = useTranslation();
  const [copied, setCopied] = useState(false);
  const fieldId = useId();
  return (
    <Dialog
      title={t('settings:newKey.title', { label })}
      onClose={onClose}
      width={520}
      initialFocus="[data-copy-key]"
      footer={
        <button type="button" className="button button--primary" onClick={onClose}>
          {t('common:done')}
        </button>
      }
    >
      <p className="settings__warning">
        <TriangleAlert size={16} aria-hidden="true" />
        {t('settings:newKey.warning')}
      </p>
      <label className="field__label" htmlFor={fieldId}>
        {t('settings:newKey.field')}
      </label>
      <div className="settings__key-row">
        <input id={fieldId} className="input settings__key" readOnly value={apiKey} onFocus={(event) => event.currentTarget.select()} />
        <button type="button" className="button" data-copy-key onClick={async () => setCopied(await copyText(apiKey))}>
          {copied ? <Check size={15} aria-hidden="true" /> : <Copy size={15} aria-hidden="true" />}
          {copied ? t('common:copied') : t('common:copy')}
        </button>
      </div>
      <p className="field__hint settings__key-use">
        <Trans i18nKey="settings:newKey.use" components={{ code: <code /> }} />
      </p>
    </Dialog>
  );
}
