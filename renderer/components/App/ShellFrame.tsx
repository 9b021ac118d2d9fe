import { useCallback, useEffect, useId, useRef, useState, type KeyboardEvent, type ReactNode } from 'react';
import { useTranslation } from 'react-i18next';
import { Menu, X } from 'lucide-react';
import { ToastPlace } from '../Toasts/ToastPlace';
import { useMediaQuery } from './useMediaQuery';
import './Shell.css';

/** Below this width the sidebar is a drawer behind a menu button (Shell.css has the same number). */
export const DRAWER_QUERY = '(max-width: 720px)';

const FOCUSABLE = 'button:not([disabled]), [href], input:not([disabled]), select:not([disabled]), [tabindex]:not([tabindex="-1"])';

interface ShellFrameProps {
  className?: string;
  /** The sidebar (an `<aside>`); a drawer on a narrow screen. */
  sidebar: ReactNode;
  /** What the top bar of a narrow screen says: the open view's name. */
  title: string;
  /** Changes whenever the person moves to another view: the drawer closes and focus is kept off `<body>`. */
  viewKey: string;
  /**
   * Changes also on moves within a view that close the drawer (a folder opened from the
   * sidebar's tree) but whose focus is the view's own (the explorer gives its list the focus);
   * `viewKey` when absent.
   */
  drawerKey?: string;
  children: ReactNode;
}

/**
 * Both windows' frame: sidebar and main pane side by side, or on a phone a top bar whose menu
 * button opens the sidebar as a drawer (focus kept inside, Escape closes, focus back on the
 * button). After moving between views, focus never stays on `<body>`: the main pane takes it
 * when the element that had it went away.
 */
export function ShellFrame({ className, sidebar, title, viewKey, drawerKey = viewKey, children }: ShellFrameProps) {
  const { t } = useTranslation();
  const narrow = useMediaQuery(DRAWER_QUERY);
  const [open, setOpen] = useState(false);
  const drawerId = useId();
  const drawerRef = useRef<HTMLDivElement>(null);
  const menuRef = useRef<HTMLButtonElement>(null);
  const mainRef = useRef<HTMLElement>(null);
  const drawer = narrow && open;

  const close = useCallback((focusMenu: boolean) => {
    setOpen(false);
    if (focusMenu) requestAnimationFrame(() => menuRef.current?.focus());
  }, []);

  // A new view: the drawer closes; if the focused element went with the old view, the new one takes focus.
  const firstView = useRef(true);
  useEffect(() => {
    if (firstView.current) {
      firstView.current = false;
      return;
    }
    setOpen(false);
    const frame = requestAnimationFrame(() => {
      const active = document.activeElement;
      const lost = !active || active === document.body || !active.isConnected;
      const hidden = narrow && active instanceof Node && drawerRef.current?.contains(active);
      if (lost || hidden) mainRef.current?.focus({ preventScroll: true });
    });
    return () => cancelAnimationFrame(frame);
  }, [viewKey, narrow]);
  useEffect(() => setOpen(false), [drawerKey]);

  // Opening moves focus into the drawer: its current place, else its first control.
  useEffect(() => {
    if (!drawer) return;
    const root = drawerRef.current;
    const target = root?.querySelector<HTMLElement>('[aria-current="page"]') ?? root?.querySelector<HTMLElement>(FOCUSABLE);
    target?.focus();
  }, [drawer]);

  // Growing past the breakpoint ends the drawer.
  useEffect(() => {
    if (!narrow) setOpen(false);
  }, [narrow]);

  function onDrawerKeyDown(event: KeyboardEvent<HTMLDivElement>) {
    if (!drawer) return;
    if (event.key === 'Escape') {
      event.stopPropagation();
      close(true);
      return;
    }
    if (event.key !== 'Tab' || !drawerRef.current) return;
    const items = [...drawerRef.current.querySelectorAll<HTMLElement>(FOCUSABLE)].filter((item) => item.offsetParent !== null);
    if (items.length === 0) return;
    const first = items[0];
    const last = items[items.length - 1];
    if (event.shiftKey && document.activeElement === first) {
      event.preventDefault();
      last.focus();
    } else if (!event.shiftKey && document.activeElement === last) {
      event.preventDefault();
      first.focus();
    }
  }

  return (
    <div className={`shell${className ? ` ${className}` : ''}${drawer ? ' shell--drawer-open' : ''}`}>
      {narrow ? (
        <header className="shell__topbar">
          <button
            ref={menuRef}
            type="button"
            className="icon-button shell__menu"
            aria-label={t('shell:menu.open')}
            aria-expanded={open}
            aria-controls={drawerId}
            onClick={() => setOpen(true)}
          >
            <Menu size={20} aria-hidden="true" />
          </button>
          <span className="shell__topbar-title">{title}</span>
        </header>
      ) : null}
      {drawer ? <div className="shell__scrim" aria-hidden="true" onClick={() => close(true)} /> : null}
      <div
        ref={drawerRef}
        id={drawerId}
        className="shell__drawer"
        role={drawer ? 'dialog' : undefined}
        aria-modal={drawer ? true : undefined}
        aria-label={drawer ? title : undefined}
        // Closed on a narrow screen, the drawer is off-screen: out of the Tab order and the accessibility tree.
        inert={narrow && !open}
        onKeyDown={onDrawerKeyDown}
      >
        {drawer ? (
          <button type="button" className="icon-button shell__drawer-close" aria-label={t('shell:menu.close')} onClick={() => close(true)}>
            <X size={20} aria-hidden="true" />
          </button>
        ) : null}
        {sidebar}
      </div>
      <main ref={mainRef} className="shell__main" tabIndex={-1} inert={drawer}>
        {children}
        {/* The toasts' strip under the view: in the layout, so a toast never covers a control. */}
        <ToastPlace kind="page" className="toast-dock" />
      </main>
    </div>
  );
}
