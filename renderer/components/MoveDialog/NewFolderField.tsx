import { useId, useState, type FormEvent, type KeyboardEvent } from 'react';
import { useTranslation } from 'react-i18next';
import { FILE_NAME_REFUSED_CHARACTERS, checkFileName } from '../../../shared/validation';
import { queryKeys } from '../../api/queryKeys';
import { useApiAction } from '../../hooks/useApiAction';
import { childFolder } from '../../lib/places';
import { useClient } from '../Session/sessionContext';
import { ruleText } from '../../api/errorText';

interface NewFolderFieldProps {
  username: string;
  /** Where the folder is made (null: the root). */
  at: string | null;
  /** The new folder's path, once made. */
  onCreated: (folder: string) => void;
  onCancel: () => void;
}

/** A name field inside the move dialog: the folder is made in the open one, which then opens it. */
export function NewFolderField({ username, at, onCreated, onCancel }: NewFolderFieldProps) {
  const { t } = useTranslation();
  const client = useClient();
  const run = useApiAction();
  const id = useId();
  const [value, setValue] = useState('');
  const [error, setError] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);

  async function submit(event: FormEvent) {
    event.preventDefault();
    // A form inside the dialog's body: its submit must not reach a form around the dialog.
    event.stopPropagation();
    const checked = checkFileName(value);
    if (!checked.ok) {
      setError(t('errors:invalidName', { rule: ruleText(checked.message) }));
      return;
    }
    const path = childFolder(at, checked.value);
    setBusy(true);
    const made = await run(
      t('explorer:actions.createFolderFailed', { name: checked.value }),
      () => client.call('folders.create', { username, folder: path }),
      [queryKeys.folders(username)],
    );
    setBusy(false);
    if (made) onCreated(path);
  }

  function onKeyDown(event: KeyboardEvent) {
    // Escape leaves the field, not the dialog.
    if (event.key !== 'Escape') return;
    event.stopPropagation();
    onCancel();
  }

  return (
    <form className="move-new" onSubmit={(event) => void submit(event)} onKeyDown={onKeyDown}>
      <label className="visually-hidden" htmlFor={id}>
        {t('explorer:move.newFolderName')}
      </label>
      <input
        id={id}
        className="input move-new__input"
        value={value}
        placeholder={t('explorer:move.newFolderName')}
        aria-invalid={error ? true : undefined}
        aria-describedby={`${id}-hint`}
        autoFocus
        onChange={(event) => {
          setValue(event.target.value);
          setError(null);
        }}
      />
      <button type="submit" className="button" disabled={busy}>
        {t('explorer:move.create')}
      </button>
      <button type="button" className="button button--ghost" onClick={onCancel}>
        {t('explorer:move.cancel')}
      </button>
      <p id={`${id}-hint`} className={error ? 'field__error move-new__hint' : 'visually-hidden'} role={error ? 'alert' : undefined}>
        {error ?? t('errors:fileNameRule', { characters: FILE_NAME_REFUSED_CHARACTERS })}
      </p>
    </form>
  );
}
