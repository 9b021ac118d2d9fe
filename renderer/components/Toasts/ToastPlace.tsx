import { useContext, useEffect, useRef } from 'react';
import { ToastHostContext, type ToastPlaceKind } from './toastContext';

/**
 * An element that takes the toasts while it is on screen, in the flow of the layout around it:
 * a toast there pushes the content aside instead of covering a control. `page` is the main
 * pane's strip (ShellFrame); `overlay` a full-screen view such as the preview.
 */
export function ToastPlace({ kind, className }: { kind: ToastPlaceKind; className: string }) {
  const register = useContext(ToastHostContext);
  const place = useRef<HTMLDivElement>(null);
  useEffect(() => (register && place.current ? register(place.current, kind) : undefined), [register, kind]);
  return <div ref={place} className={className} />;
}
