import { HardDrive, Link2, Settings } from 'lucide-react';

/** The signed-in person's own places. */
export type AccountPlace = 'files' | 'shared' | 'settings';

interface AccountNavProps {
  /** The place open now, or null when the window shows something else (another user, Roles). */
  current: AccountPlace | null;
  onOpen: (place: AccountPlace) => void;
}

const PLACES = [
  { place: 'files', label: 'My files', Icon: HardDrive },
  { place: 'shared', label: 'Shared by me', Icon: Link2 },
  { place: 'settings', label: 'Settings', Icon: Settings },
] as const;

/** "My files", "Shared by me" and "Settings": a user's whole sidebar, and the top of an admin's. */
export function AccountNav({ current, onOpen }: AccountNavProps) {
  return (
    <ul className="account-nav">
      {PLACES.map(({ place, label, Icon }) => (
        <li key={place}>
          <button
            type="button"
            className={`sidebar__link${current === place ? ' is-current' : ''}`}
            aria-current={current === place ? 'page' : undefined}
            onClick={() => onOpen(place)}
          >
            <Icon size={17} aria-hidden="true" />
            {label}
          </button>
        </li>
      ))}
    </ul>
  );
}
