import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import { LANGUAGES, chooseLanguage, currentLanguage, type Language } from '../../i18n';
import { SettingsCard } from './SettingsCard';

/**
 * The five languages, each by its own name (a person who cannot read the current one still
 * finds theirs), switching the whole UI at once and remembered in this browser.
 */
export function LanguageSection() {
  const { t, i18n } = useTranslation();
  // Read through i18n so this re-renders when the language changes.
  const shown = (i18n.resolvedLanguage as Language | undefined) ?? currentLanguage();
  // The one picked shows as picked while its strings load (a language is fetched on demand,
  // renderer/i18n/index.ts), not the old one again until they are here.
  const [picked, setPicked] = useState<Language | null>(null);
  const current = picked ?? shown;
  const choose = (code: Language) => {
    setPicked(code);
    chooseLanguage(code)
      .catch((error: unknown) => console.warn(error))
      .finally(() => setPicked((now) => (now === code ? null : now)));
  };
  return (
    <SettingsCard title={t('settings:language.title')} lead={t('settings:language.lead')}>
      <fieldset className="settings__languages">
        <legend className="visually-hidden">{t('settings:language.title')}</legend>
        {LANGUAGES.map(({ code, name }) => (
          <label key={code} className={`settings__language${current === code ? ' is-current' : ''}`} lang={code}>
            <input type="radio" name="language" value={code} checked={current === code} onChange={() => choose(code)} />
            <span>{name}</span>
          </label>
        ))}
      </fieldset>
    </SettingsCard>
  );
}
