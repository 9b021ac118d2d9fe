import { useRef, type KeyboardEvent } from 'react';
import { useTranslation } from 'react-i18next';

export type UserTab = 'files' | 'trash';
const TABS: readonly UserTab[] = ['files', 'trash'];

/** An admin's view of a user: their files or their trash (WAI-ARIA tabs: arrows move between them). */
export function UserTabs({ username, tab, onChange }: { username: string; tab: UserTab; onChange: (tab: UserTab) => void }) {
  const { t } = useTranslation();
  const listRef = useRef<HTMLDivElement>(null);
  const label = { files: t('shell:userTabs.files'), trash: t('shell:userTabs.trash') };

  function onKeyDown(event: KeyboardEvent<HTMLDivElement>) {
    if (event.key !== 'ArrowLeft' && event.key !== 'ArrowRight') return;
    event.preventDefault();
    const next = TABS[(TABS.indexOf(tab) + (event.key === 'ArrowRight' ? 1 : TABS.length - 1)) % TABS.length];
    onChange(next);
    requestAnimationFrame(() => listRef.current?.querySelector<HTMLElement>(`#user-tab-${next}`)?.focus());
  }

  return (
    <div
      ref={listRef}
      className="shell__tabs"
      role="tablist"
      aria-label={t('shell:userTabs.label', { name: username })}
      onKeyDown={onKeyDown}
    >
      {TABS.map((name) => (
        <button
          key={name}
          id={`user-tab-${name}`}
          type="button"
          role="tab"
          className="shell__tab"
          aria-selected={tab === name}
          aria-controls="user-tab-panel"
          tabIndex={tab === name ? 0 : -1}
          onClick={() => onChange(name)}
        >
          {label[name]}
        </button>
      ))}
    </div>
  );
}
