import type { ReactNode } from 'react';
import { useTranslation } from 'react-i18next';
import { HardDrive, Link2, Settings, Trash2 } from 'lucide-react';

/** The signed-in person's own places. */
export type AccountPlace = 'files' | 'shared' | 'trash' | 'settings';

interface AccountNavProps {
  /** The place open now, or null when the window shows something else (another user, Roles). */
  current: AccountPlace | null;
  onOpen: (place: AccountPlace) => void;
  /** The user's folder tree (Sidebar/FolderTree), under "My files". */
  folderTree?: ReactNode;
}

const PLACES = [
  { place: 'files', Icon: HardDrive },
  { place: 'shared', Icon: Link2 },
  { place: 'trash', Icon: Trash2 },
  { place: 'settings', Icon: Settings },
] as const;

/** The words for each place, also the top bar's title on a phone. */
export function usePlaceLabel(): (place: AccountPlace) => string {
  const { t } = useTranslation();
  return (place) =>
    ({
      files: t('shell:nav.myFiles'),
      shared: t('shell:nav.shared'),
      trash: t('shell:nav.trash'),
      settings: t('shell:nav.settings'),
    })[place];
}

/** "My files", "Shared by me", "Trash" and "Settings": a user's whole sidebar, and the top of an admin's. */
export function AccountNav({ current, onOpen, folderTree }: AccountNavProps) {
  const label = usePlaceLabel();
  return (
    <ul className="account-nav">
      {PLACES.map(({ place, Icon }) => (
        <li key={place}>
          <button
            type="button"
            className={`sidebar__link${current === place ? ' is-current' : ''}`}
            aria-current={current === place ? 'page' : undefined}
            onClick={() => onOpen(place)}
          >
            <Icon size={17} aria-hidden="true" />
            {label(place)}
          </button>
          {place === 'files' ? folderTree : null}
        </li>
      ))}
    </ul>
  );
}
