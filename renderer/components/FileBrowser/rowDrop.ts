import { useEffect, type DragEvent } from 'react';

type DropInto = (to: string | null, event: DragEvent) => void;

/**
 * The file browser on screen's drop handler (useRowDrag's `dropInto`), so that rows dropped
 * outside it, on the sidebar's folder tree, move as a drop onto a folder row does. Rows can
 * only be dragged from the one browser on screen, so one slot is enough.
 */
let onScreen: { username: string; dropInto: DropInto } | null = null;

/** Makes `dropInto` the handler of drops onto `username`'s folders outside the browser, while mounted. */
export function useOfferRowDrop(username: string, dropInto: DropInto) {
  useEffect(() => {
    const mine = { username, dropInto };
    onScreen = mine;
    return () => {
      if (onScreen === mine) onScreen = null;
    };
  }, [username, dropInto]);
}

/** Rows dropped onto `username`'s folder `to`: moved by the browser they came from (nothing when it shows someone else's). */
export function dropRowsInto(username: string, to: string | null, event: DragEvent) {
  if (onScreen?.username === username) onScreen.dropInto(to, event);
}
