import { useEffect, useLayoutEffect, useRef, useState, type KeyboardEvent } from 'react';
import { createPortal } from 'react-dom';
import type { LucideIcon } from 'lucide-react';
import './ContextMenu.css';

export interface MenuItem {
  id: string;
  label: string;
  icon: LucideIcon;
  /** Runs after the menu closed. */
  onSelect?: () => void;
  /** A plain link instead (a download the browser streams itself). */
  href?: string;
  download?: string;
  danger?: boolean;
}

interface ContextMenuProps {
  label: string;
  items: readonly MenuItem[];
  /** Viewport coordinates of the pointer, or of the row the keyboard opened it for. */
  position: { x: number; y: number };
  /** Closed without a choice (Escape, Tab, a click elsewhere) or after one. */
  onClose: () => void;
}

const MARGIN = 8;

/**
 * A WAI-ARIA menu at a point: focus on the first item, arrows (wrapping), Home and End move,
 * Enter or Space chooses, Escape or Tab or a click outside closes. The caller puts the focus
 * back where it was (the row) in `onClose`.
 */
export function ContextMenu({ label, items, position, onClose }: ContextMenuProps) {
  const ref = useRef<HTMLDivElement>(null);
  const [place, setPlace] = useState(position);
  const itemsOf = () => [...(ref.current?.querySelectorAll<HTMLElement>('[role="menuitem"]') ?? [])];

  // Kept inside the viewport: a menu opened near the right or bottom edge opens towards the middle.
  useLayoutEffect(() => {
    const menu = ref.current;
    if (!menu) return;
    const { width, height } = menu.getBoundingClientRect();
    const x = Math.max(MARGIN, Math.min(position.x, window.innerWidth - width - MARGIN));
    const y = position.y + height + MARGIN > window.innerHeight ? Math.max(MARGIN, position.y - height) : position.y;
    setPlace({ x, y });
  }, [position]);

  useEffect(() => {
    itemsOf()[0]?.focus();
  }, []);

  useEffect(() => {
    const onPointerDown = (event: PointerEvent) => {
      if (!ref.current?.contains(event.target as Node)) onClose();
    };
    const onScrollOrResize = () => onClose();
    document.addEventListener('pointerdown', onPointerDown, true);
    window.addEventListener('resize', onScrollOrResize);
    window.addEventListener('blur', onScrollOrResize);
    return () => {
      document.removeEventListener('pointerdown', onPointerDown, true);
      window.removeEventListener('resize', onScrollOrResize);
      window.removeEventListener('blur', onScrollOrResize);
    };
  }, [onClose]);

  function onKeyDown(event: KeyboardEvent) {
    const list = itemsOf();
    const index = list.indexOf(document.activeElement as HTMLElement);
    const focusAt = (i: number) => list[(i + list.length) % list.length]?.focus();
    let handled = true;
    switch (event.key) {
      case 'ArrowDown':
        focusAt(index + 1);
        break;
      case 'ArrowUp':
        focusAt(index - 1);
        break;
      case 'Home':
        focusAt(0);
        break;
      case 'End':
        focusAt(list.length - 1);
        break;
      case 'Escape':
      case 'Tab':
        onClose();
        break;
      case 'Enter':
      case ' ':
        list[index]?.click();
        break;
      default:
        // A letter moves to the next item starting with it (as in native menus).
        if (event.key.length === 1 && /\S/.test(event.key)) {
          const key = event.key.toLocaleLowerCase();
          const order = [...list.slice(index + 1), ...list.slice(0, index + 1)];
          order.find((item) => item.textContent?.trim().toLocaleLowerCase().startsWith(key))?.focus();
        } else handled = false;
    }
    if (handled) {
      event.preventDefault();
      event.stopPropagation();
    }
  }

  const choose = (item: MenuItem) => {
    onClose();
    item.onSelect?.();
  };

  return createPortal(
    <div
      ref={ref}
      role="menu"
      aria-label={label}
      className="menu"
      style={{ left: place.x, top: place.y }}
      onKeyDown={onKeyDown}
      onContextMenu={(event) => event.preventDefault()}
    >
      {items.map((item) => {
        const Icon = item.icon;
        const className = `menu__item${item.danger ? ' menu__item--danger' : ''}`;
        const content = (
          <>
            <Icon size={16} aria-hidden="true" />
            <span>{item.label}</span>
          </>
        );
        return item.href ? (
          <a
            key={item.id}
            role="menuitem"
            tabIndex={-1}
            className={className}
            href={item.href}
            download={item.download}
            // Let the browser follow the link first; closing unmounts the anchor.
            onClick={() => window.setTimeout(onClose, 0)}
          >
            {content}
          </a>
        ) : (
          <button key={item.id} type="button" role="menuitem" tabIndex={-1} className={className} onClick={() => choose(item)}>
            {content}
          </button>
        );
      })}
    </div>,
    document.body,
  );
}
