import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import { Monitor, Moon, Sun, type LucideIcon } from 'lucide-react';
import { LANGUAGES, currentLanguage, type Language } from '../../i18n';
import { chooseAccountLanguage, chooseTheme } from '../../lib/appearance';
import { useTheme, type Theme } from '../../lib/theme';
import { SettingsCard } from './SettingsCard';

const THEME_ICONS: Record<Theme, LucideIcon> = { system: Monitor, light: Sun, dark: Moon };

/** How Nimbus looks for the signed-in person: theme and language, each applied at once and kept for them (lib/appearance.ts). */
export function AppearanceSection() {
  const { t } = useTranslation();
  return (
    <SettingsCard title={t('settings:appearance.title')} lead={t('settings:appearance.lead')}>
      <ThemeChoice />
      <LanguageChoice />
    </SettingsCard>
  );
}

function ThemeChoice() {
  const { t } = useTranslation();
  const theme = useTheme();
  const label: Record<Theme, string> = {
    system: t('settings:appearance.system'),
    light: t('settings:appearance.light'),
    dark: t('settings:appearance.dark'),
  };
  return (
    <fieldset className="settings__choices">
      <legend className="settings__legend">{t('settings:appearance.theme')}</legend>
      {(Object.keys(THEME_ICONS) as Theme[]).map((name) => {
        const Icon = THEME_ICONS[name];
        return (
          <label key={name} className={`settings__choice${theme === name ? ' is-current' : ''}`}>
            <input type="radio" name="theme" value={name} checked={theme === name} onChange={() => chooseTheme(name)} />
            <Icon size={16} aria-hidden="true" />
            <span>{label[name]}</span>
          </label>
        );
      })}
      <p className="settings__choice-hint">{t('settings:appearance.systemHint')}</p>
    </fieldset>
  );
}

/**
 * The five languages, each by its own name (a person who cannot read the current one still
 * finds theirs), switching the whole UI at once.
 */
function LanguageChoice() {
  const { t, i18n } = useTranslation();
  // Read through i18n so this re-renders when the language changes.
  const shown = (i18n.resolvedLanguage as Language | undefined) ?? currentLanguage();
  // The one picked shows as picked while its strings load (a language is fetched on demand,
  // renderer/i18n/index.ts), not the old one again until they are here.
  const [picked, setPicked] = useState<Language | null>(null);
  const current = picked ?? shown;
  const choose = (code: Language) => {
    setPicked(code);
    chooseAccountLanguage(code)
      .catch((error: unknown) => console.warn(error))
      .finally(() => setPicked((now) => (now === code ? null : now)));
  };
  return (
    <fieldset className="settings__choices">
      <legend className="settings__legend">{t('settings:language.title')}</legend>
      {LANGUAGES.map(({ code, name }) => (
        <label key={code} className={`settings__choice${current === code ? ' is-current' : ''}`} lang={code}>
          <input type="radio" name="language" value={code} checked={current === code} onChange={() => choose(code)} />
          <span>{name}</span>
        </label>
      ))}
      <p className="settings__choice-hint">{t('settings:language.lead')}</p>
    </fieldset>
  );
}
