import { useEffect, useId, useLayoutEffect, useRef, useState } from 'react';
import { useVirtualizer } from '@tanstack/react-virtual';
import { useFileView, type FileViewProps } from '../FileTable/useFileView';
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
  const { rows } = props;
  const scrollRef = useRef<HTMLDivElement>(null);
  const gridId = useId();
  const columns = columnsFor(useWidth(scrollRef));
  const lines = Math.ceil(rows.length / columns);
  const cardId = (index: number) => `${gridId}-card-${index}`;
  const { activeIndex, onKeyDown, itemProps } = useFileView(props, scrollRef, { columns, lineHeight: CARD_HEIGHT + GAP, itemId: cardId });

  const virtualizer = useVirtualizer({
    count: lines,
    getScrollElement: () => scrollRef.current,
    estimateSize: () => CARD_HEIGHT + GAP,
    overscan: 3,
    paddingStart: PADDING,
    paddingEnd: PADDING,
  });

  useEffect(() => {
    if (activeIndex >= 0) virtualizer.scrollToIndex(Math.floor(activeIndex / columns), { align: 'auto' });
  }, [activeIndex, columns, virtualizer]);

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
              return <FileCard key={row.key} {...itemProps(row)} username={props.username} id={cardId(index)} />;
            })}
          </div>
        ))}
      </div>
    </div>
  );
}
