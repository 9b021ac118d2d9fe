import { useId, type InputHTMLAttributes, type ReactNode } from 'react';

interface TextFieldProps extends Omit<InputHTMLAttributes<HTMLInputElement>, 'onChange' | 'value'> {
  label: string;
  value: string;
  onChange: (value: string) => void;
  /** The rule, shown before anything is typed. */
  hint?: ReactNode;
  /** Replaces the hint when set. */
  error?: string | null;
  children?: ReactNode;
}

/** A labelled input whose hint (the rule) turns into the error once the value breaks it. */
export function TextField({ label, value, onChange, hint, error, children, className, ...rest }: TextFieldProps) {
  const id = useId();
  const noteId = `${id}-note`;
  const note = error ?? hint;
  return (
    <div className="field">
      <label className="field__label" htmlFor={id}>
        {label}
      </label>
      <input
        id={id}
        className={`input ${className ?? ''}`}
        value={value}
        onChange={(event) => onChange(event.target.value)}
        aria-invalid={error ? true : undefined}
        aria-describedby={note ? noteId : undefined}
        {...rest}
      />
      {children}
      {note ? (
        <p id={noteId} className={error ? 'field__error' : 'field__hint'}>
          {note}
        </p>
      ) : null}
    </div>
  );
}
