import { useTranslation } from 'react-i18next';
import { TextField } from '../TextField/TextField';

interface CurrentPasswordFieldProps {
  value: string;
  onChange: (value: string) => void;
  error: string | null;
  hint?: string;
}

/** The signed-in person's current password, which the daemon asks for before it changes their password or address. */
export function CurrentPasswordField({ value, onChange, error, hint }: CurrentPasswordFieldProps) {
  const { t } = useTranslation();
  return (
    <TextField
      label={t('settings:password.current')}
      type="password"
      value={value}
      onChange={onChange}
      hint={hint}
      error={error}
      autoComplete="current-password"
    />
  );
}
