import { useTranslation } from 'react-i18next';
import { TextField } from '../TextField/TextField';

/** The username, first on the sign-in and register forms: focused, and never spell-checked. */
export function UsernameField({ value, onChange, error }: { value: string; onChange: (value: string) => void; error?: string | null }) {
  const { t } = useTranslation();
  return (
    <TextField
      label={t('signin:username')}
      value={value}
      onChange={onChange}
      autoComplete="username"
      autoFocus
      spellCheck={false}
      error={error}
    />
  );
}
