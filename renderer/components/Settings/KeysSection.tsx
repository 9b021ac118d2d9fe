import { useId, useState, type FormEvent } from 'react';
import { KeyRound, Trash2 } from 'lucide-react';
import type { ApiKeyInfo } from '../../../shared/types';
import { checkAccountName } from '../../../shared/validation';
import { errorMessage } from '../../api/client';
import { queryKeys } from '../../api/queryKeys';
import { useKeys } from '../../hooks/queries';
import { useApiAction } from '../../hooks/useApiAction';
import { formatFullDate, formatModified } from '../../lib/format';
import { ConfirmDialog } from '../ConfirmDialog/ConfirmDialog';
import { useClient } from '../Session/sessionContext';
import { TextField } from '../TextField/TextField';
import { useToast } from '../Toasts/toastContext';
import { NewKeyDialog } from './NewKeyDialog';
import { SettingsCard } from './SettingsCard';

const SCOPE_TEXT: Record<string, string> = { write: 'Read and write', read: 'Read only', admin: 'Admin' };

/** Personal API keys (`keys.*`): for scripts and tools acting as this user, each shown once when made. */
export function KeysSection({ username }: { username: string }) {
  const client = useClient();
  const toast = useToast();
  const run = useApiAction();
  const keys = useKeys();
  // An admin lists every key; here are only this user's own.
  const mine = (keys.data ?? []).filter((key) => key.username === username);
  const scopeId = useId();
  const [label, setLabel] = useState('');
  const [scope, setScope] = useState<'write' | 'read'>('write');
  const [tried, setTried] = useState(false);
  const [busy, setBusy] = useState(false);
  const [created, setCreated] = useState<{ label: string; key: string } | null>(null);
  const [deleting, setDeleting] = useState<ApiKeyInfo | null>(null);
  const check = checkAccountName(label.trim());
  const labelError = tried && !check.ok ? `The label ${check.message}` : null;

  async function create(event: FormEvent) {
    event.preventDefault();
    setTried(true);
    if (!check.ok) return;
    setBusy(true);
    const result = await run('Could not create the key', () => client.call('keys.create', { label: check.value, scope }), [queryKeys.keys]);
    setBusy(false);
    if (!result) return;
    setLabel('');
    setTried(false);
    setCreated({ label: result.label, key: result.key });
  }

  return (
    <SettingsCard
      title="Personal API keys"
      lead="A key lets a script or tool use Nimbus as you. Anyone who has it can, too: keep it secret."
    >
      {keys.isError ? <p className="field__error">{errorMessage(keys.error)}</p> : null}
      {keys.isSuccess && mine.length === 0 ? <p className="settings__muted">You have no keys.</p> : null}
      {mine.length > 0 ? (
        <ul className="settings__list" aria-label="Your API keys">
          {mine.map((key) => (
            <li key={key.label} className="settings__item">
              <KeyRound size={18} aria-hidden="true" className="settings__item-icon" />
              <div className="settings__item-main">
                <div className="settings__item-title">
                  {key.label}
                  <span className="tag">{SCOPE_TEXT[key.scope] ?? key.scope}</span>
                </div>
                <div className="settings__item-meta" title={formatFullDate(key.createdAt)}>
                  created {formatModified(key.createdAt)}
                </div>
              </div>
              <button
                type="button"
                className="icon-button icon-button--danger"
                aria-label={`Delete the key ${key.label}`}
                title="Delete key"
                onClick={() => setDeleting(key)}
              >
                <Trash2 size={16} aria-hidden="true" />
              </button>
            </li>
          ))}
        </ul>
      ) : null}
      <form className="settings__inline-form" onSubmit={create} noValidate>
        <TextField
          label="Key label"
          value={label}
          onChange={setLabel}
          placeholder="e.g. backup-script"
          spellCheck={false}
          error={labelError}
        />
        <div className="field">
          <label className="field__label" htmlFor={scopeId}>
            Access
          </label>
          <select id={scopeId} className="select" value={scope} onChange={(event) => setScope(event.target.value as 'write' | 'read')}>
            <option value="write">Read and write</option>
            <option value="read">Read only</option>
          </select>
        </div>
        <button type="submit" className="button" disabled={busy}>
          Create key
        </button>
      </form>
      {created ? <NewKeyDialog label={created.label} apiKey={created.key} onClose={() => setCreated(null)} /> : null}
      {deleting ? (
        <ConfirmDialog
          title={`Delete the key “${deleting.label}”?`}
          confirmLabel="Delete key"
          onClose={() => setDeleting(null)}
          onConfirm={async () => {
            const done = await run(`Could not delete ${deleting.label}`, () => client.call('keys.delete', { label: deleting.label }), [
              queryKeys.keys,
            ]);
            if (done) toast.success(`Deleted the key ${deleting.label}`);
          }}
        >
          <p>Whatever uses this key stops working at once. This cannot be undone.</p>
        </ConfirmDialog>
      ) : null}
    </SettingsCard>
  );
}
