import { hueFor, initials } from '../../lib/format';
import './Avatar.css';

/** Initials on a colour that stays the same for a name. Decorative: the name is always shown beside it. */
export function Avatar({ name, size = 28 }: { name: string; size?: number }) {
  return (
    <span
      className="avatar"
      aria-hidden="true"
      style={{ width: size, height: size, fontSize: Math.round(size * 0.4), ['--avatar-hue' as string]: hueFor(name) }}
    >
      {initials(name)}
    </span>
  );
}
