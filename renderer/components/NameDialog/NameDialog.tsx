import { useTranslation } from 'react-i18next';
import { useId, useState, type FormEvent } from 'react';
import type { Checked } from '../../../shared/validation';
import { useSaveThenClose } from '../Dialog/DialogButtons';
import { FormDialog } from '../Dialog/FormDialog';
import { ruleText } from '../../api/errorText';

interface NameDialogProps {
  title: string;
  label: string;
  rule: string;
  submitLabel: string;
  validate: (raw: string) => Checked<string>;
  /** Resolves true when done (the dialog closes), false to keep it open. */
  onSubmit: (name: string) => Promise<boolean>;
  onClose: () => void;
}

/** Asks for one name (a new folder…), checking the shared rules before it is sent. */
export function NameDialog(props: NameDialogProps) {
  const { t } = useTranslation();
  const [value, setValue] = useState('');
  const [error, setError] = useState<string | null>(null);
  const { busy, save } = useSaveThenClose(props.onClose);
  const id = useId();

  async function submit(event: FormEvent) {
    event.preventDefault();
    const checked = props.validate(value);
    if (!checked.ok) {
      setError(t('errors:invalidName', { rule: ruleText(checked.message) }));
      return;
    }
    await save(() => props.onSubmit(checked.value));
  }

  return (
    <FormDialog title={props.title} submitLabel={props.submitLabel} busy={busy} onSubmit={submit} onClose={props.onClose}>
      <div className="field">
        <label className="field__label" htmlFor={id}>
          {props.label}
        </label>
        <input
          id={id}
          className="input"
          value={value}
          aria-invalid={error ? true : undefined}
          aria-describedby={`${id}-hint`}
          onChange={(event) => {
            setValue(event.target.value);
            setError(null);
          }}
        />
        <p id={`${id}-hint`} className={error ? 'field__error' : 'field__hint'} role={error ? 'alert' : undefined}>
          {error ?? props.rule}
        </p>
      </div>
    </FormDialog>
  );
}
