import { useCallback, useEffect, useId, useLayoutEffect, useRef, useState, type KeyboardEvent } from 'react';
import { useVirtualizer } from '@tanstack/react-virtual';
import { handleListKey } from '../FileTable/listKeys';
import { menuPositionOf } from '../FileTable/rowEvents';
import { useRowClicks, type FileViewProps } from '../FileTable/FileTable';
import { FileCard } from './FileCard';
import './FileGrid.css';

const CARD_MIN_WIDTH = 150;
const CARD_HEIGHT = 188;
const GAP = 12;
const PADDING = 16;

/** Cards per line for a width (at least one). */
export function columnsFor(width: number): number {
  return Math.max(1, Math.floor((width - 2 * PADDING + GAP) / (CARD_MIN_WIDTH + GAP)));
}

function useWidth(ref: React.RefObject<HTMLElement | null>): number {
  const [width, setWidth] = useState(0);
  useLayoutEffect(() => {
    const element = ref.current;
    if (!element) return;
    setWidth(element.clientWidth);
    if (typeof ResizeObserver === 'undefined') return;
    const observer = new ResizeObserver(() => setWidth(element.clientWidth));
    observer.observe(element);
    return () => observer.disconnect();
  }, [ref]);
  return width;
}

/**
 * The grid view: cards with thumbnails, in lines of as many as fit. Same keys, clicks,
 * selection and menu as the list (arrows move in two dimensions); only the lines in view are
 * in the DOM, and a thumbnail loads only once its card is near the view.
 */
export function FileGrid(props: FileViewProps & { username: string }) {
  const { rows, selection, editingKey } = props;
  const scrollRef = useRef<HTMLDivElement>(null);
  const gridId = useId();
  const columns = columnsFor(useWidth(scrollRef));
  const lines = Math.ceil(rows.length / columns);
  const keys = rows.map((row) => row.key);

  const virtualizer = useVirtualizer({
    count: lines,
    getScrollElement: () => scrollRef.current,
    estimateSize: () => CARD_HEIGHT + GAP,
    overscan: 3,
    paddingStart: PADDING,
    paddingEnd: PADDING,
  });

  const activeIndex = selection.active === null ? -1 : keys.indexOf(selection.active);
  useEffect(() => {
    if (activeIndex >= 0) virtualizer.scrollToIndex(Math.floor(activeIndex / columns), { align: 'auto' });
  }, [activeIndex, columns, virtualizer]);

  const wasEditing = useRef(false);
  useEffect(() => {
    if (wasEditing.current && editingKey === null) scrollRef.current?.focus({ preventScroll: true });
    wasEditing.current = editingKey !== null;
  }, [editingKey]);

  const cardId = (index: number) => `${gridId}-card-${index}`;
  const focusTarget = useCallback(() => scrollRef.current, []);
  const { onRowClick, onRowDoubleClick, onRowMenu } = useRowClicks(props, focusTarget);

  function onKeyDown(event: KeyboardEvent<HTMLDivElement>) {
    if (editingKey !== null || event.target !== event.currentTarget) return;
    const handled = handleListKey(event, {
      ...props,
      columns,
      pageLines: Math.max(1, Math.floor((scrollRef.current?.clientHeight ?? 400) / (CARD_HEIGHT + GAP)) - 1),
      onPreview: props.onPreview ?? props.onOpen,
      onMenu: (row) => props.onMenu?.(row, menuPositionOf(document.getElementById(cardId(keys.indexOf(row.key))))),
    });
    if (handled) event.preventDefault();
  }

  return (
    <div
      ref={scrollRef}
      className="fg"
      role="grid"
      tabIndex={0}
      aria-label={props.label}
      aria-rowcount={lines}
      aria-colcount={columns}
      aria-multiselectable="true"
      aria-activedescendant={activeIndex >= 0 ? cardId(activeIndex) : undefined}
      onKeyDown={onKeyDown}
    >
      <div role="rowgroup" className="fg__body" style={{ height: virtualizer.getTotalSize() }}>
        {virtualizer.getVirtualItems().map((line) => (
          <div
            key={line.index}
            role="row"
            aria-rowindex={line.index + 1}
            className="fg__line"
            style={{
              transform: `translateY(${line.start}px)`,
              gridTemplateColumns: `repeat(${columns}, minmax(0, 1fr))`,
              height: CARD_HEIGHT,
            }}
          >
            {rows.slice(line.index * columns, (line.index + 1) * columns).map((row, offset) => {
              const index = line.index * columns + offset;
              return (
                <FileCard
                  key={row.key}
                  username={props.username}
                  row={row}
                  id={cardId(index)}
                  selected={selection.selected.has(row.key)}
                  active={selection.active === row.key}
                  editing={editingKey === row.key}
                  onRowClick={onRowClick}
                  onRowDoubleClick={onRowDoubleClick}
                  onRowMenu={onRowMenu}
                  onShareClick={props.onShareClick}
                  onRenameCommit={props.onRenameCommit}
                  onRenameCancel={props.onRenameCancel}
                  onRowDragStart={props.onRowDragStart}
                  onDropOnFolder={props.onDropOnFolder}
                />
              );
            })}
          </div>
        ))}
      </div>
    </div>
  );
}
