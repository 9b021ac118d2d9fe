import { useEffect, useId, useRef, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { checkFileName } from '../../../shared/validation';
import type { RenameRefusal } from './renameRefusal';
import './RenameEditor.css';
import { ruleText } from '../../api/errorText';

interface RenameEditorProps {
  initial: string;
  /** Called with a valid, changed name. */
  onCommit: (name: string) => void;
  onCancel: () => void;
  /** The daemon refused the name last committed: shown again in the field, with the reason under it. */
  refusal?: RenameRefusal | null;
}

/** The part of a name before its extension, which is what a rename usually changes. */
export function baseNameLength(name: string): number {
  const dot = name.lastIndexOf('.');
  return dot > 0 ? dot : name.length;
}

/**
 * Inline rename: Enter saves, Escape cancels, leaving the field saves when the name is
 * valid (as Finder does). The name rules are checked before anything is sent; a name the
 * daemon refuses (taken) comes back as `refusal`, and editing goes on with what was typed.
 * The message sits under the field, in the row's flow (the row grows), never over the next row.
 */
export function RenameEditor({ initial, onCommit, onCancel, refusal = null }: RenameEditorProps) {
  const { t } = useTranslation();
  const [value, setValue] = useState(refusal?.name ?? initial);
  const [error, setError] = useState<string | null>(refusal?.reason ?? null);
  const finished = useRef(false);
  const input = useRef<HTMLInputElement>(null);
  const errorId = useId();

  useEffect(() => {
    const field = input.current;
    if (!field) return;
    field.focus();
    field.setSelectionRange(0, baseNameLength(initial));
  }, [initial]);

  // A refusal reopens the editing: the typed name back in the field, its base selected to retype.
  useEffect(() => {
    if (!refusal) return;
    finished.current = false;
    setValue(refusal.name);
    setError(refusal.reason);
    const field = input.current;
    field?.focus();
    field?.setSelectionRange(0, baseNameLength(refusal.name));
  }, [refusal]);

  function finish(save: boolean): void {
    if (finished.current) return;
    if (!save || value === initial) {
      finished.current = true;
      onCancel();
      return;
    }
    const checked = checkFileName(value);
    if (!checked.ok) {
      setError(t('explorer:rename.invalid', { problem: ruleText(checked.message) }));
      return;
    }
    finished.current = true;
    if (checked.value === initial) onCancel();
    else onCommit(checked.value);
  }

  return (
    <span className="rename">
      <input
        ref={input}
        className="input rename__input"
        aria-label={t('explorer:rename.label', { name: initial })}
        value={value}
        spellCheck={false}
        aria-invalid={error ? true : undefined}
        aria-describedby={error ? errorId : undefined}
        onChange={(event) => {
          setValue(event.target.value);
          setError(null);
        }}
        onKeyDown={(event) => {
          event.stopPropagation();
          if (event.key === 'Enter') {
            event.preventDefault();
            finish(true);
          } else if (event.key === 'Escape') {
            event.preventDefault();
            finish(false);
          }
        }}
        onBlur={() => {
          // An invalid name on blur is abandoned rather than left half-edited; so is a name just
          // refused as taken (sending it again would only be refused again).
          const refused = refusal !== null && value === refusal.name;
          finish(checkFileName(value).ok && !refused);
        }}
        onClick={(event) => event.stopPropagation()}
        onDoubleClick={(event) => event.stopPropagation()}
        onMouseDown={(event) => event.stopPropagation()}
      />
      {error ? (
        <span id={errorId} role="alert" className="rename__error">
          {error}
        </span>
      ) : null}
    </span>
  );
}
