import { useEffect, useId, useRef } from 'react';
import { useTranslation } from 'react-i18next';
import { useVirtualizer } from '@tanstack/react-virtual';
import { ArrowDown, ArrowUp } from 'lucide-react';
import type { Sort, SortKey } from '../../lib/rows';
import { FileRow } from './FileRow';
import { useCompact } from './useCompact';
import { useFileView, type FileViewProps } from './useFileView';
import './FileTable.css';

export type { FileViewProps };

export const ROW_HEIGHT = 36;
/** Rows on a small or touch screen: 44 px targets with room around them. */
export const COMPACT_ROW_HEIGHT = 48;
const HEADER_HEIGHT = 34;

const COLUMNS: { key: SortKey; className: string }[] = [
  { key: 'name', className: 'ft__cell--name' },
  { key: 'size', className: 'ft__cell--size' },
  { key: 'modified', className: 'ft__cell--modified' },
  { key: 'shared', className: 'ft__cell--shared' },
];

export interface FileTableProps extends FileViewProps {
  sort: Sort;
  onSort: (key: SortKey) => void;
}

/**
 * The file list as an ARIA grid: one tab stop, arrows move the active row (announced
 * through aria-activedescendant), and only the rows in view are in the DOM.
 */
export function FileTable(props: FileTableProps) {
  const { t } = useTranslation();
  const { rows } = props;
  const scrollRef = useRef<HTMLDivElement>(null);
  const gridId = useId();
  const rowHeight = useCompact() ? COMPACT_ROW_HEIGHT : ROW_HEIGHT;
  const rowId = (index: number) => `${gridId}-row-${index}`;
  const { activeIndex, onKeyDown, itemProps } = useFileView(props, scrollRef, { columns: 1, lineHeight: rowHeight, itemId: rowId });

  const virtualizer = useVirtualizer({
    count: rows.length,
    getScrollElement: () => scrollRef.current,
    estimateSize: () => rowHeight,
    overscan: 12,
    scrollMargin: HEADER_HEIGHT,
    scrollPaddingStart: HEADER_HEIGHT,
    getItemKey: (index) => rows[index].key,
  });
  // A rename that ends gives its row back its one-line height (the measured, taller size is dropped).
  useEffect(() => virtualizer.measure(), [rowHeight, props.editingKey, virtualizer]);

  useEffect(() => {
    if (activeIndex >= 0) virtualizer.scrollToIndex(activeIndex, { align: 'auto' });
  }, [activeIndex, virtualizer]);

  return (
    <div
      ref={scrollRef}
      className="ft"
      role="grid"
      tabIndex={0}
      aria-label={props.label}
      aria-rowcount={rows.length + 1}
      aria-colcount={COLUMNS.length + 1}
      aria-multiselectable="true"
      aria-activedescendant={activeIndex >= 0 ? rowId(activeIndex) : undefined}
      onKeyDown={onKeyDown}
    >
      <div role="rowgroup" className="ft__head">
        <div role="row" aria-rowindex={1} className="ft__row ft__row--head">
          {COLUMNS.map((column) => {
            const sorted = props.sort.key === column.key;
            const Arrow = props.sort.direction === 'asc' ? ArrowUp : ArrowDown;
            return (
              <div
                key={column.key}
                role="columnheader"
                className={`ft__cell ${column.className}`}
                aria-sort={sorted ? (props.sort.direction === 'asc' ? 'ascending' : 'descending') : 'none'}
              >
                <button type="button" className="ft__sort" onClick={() => props.onSort(column.key)}>
                  {t(`explorer:table.column.${column.key}`)}
                  {sorted ? <Arrow size={13} aria-hidden="true" /> : null}
                </button>
              </div>
            );
          })}
          <div role="columnheader" className="ft__cell ft__cell--more">
            <span className="visually-hidden">{t('explorer:table.column.actions')}</span>
          </div>
        </div>
      </div>
      <div role="rowgroup" className="ft__body" style={{ height: virtualizer.getTotalSize() }}>
        {virtualizer.getVirtualItems().map((item) => {
          const row = rows[item.index];
          return (
            <FileRow
              key={row.key}
              {...itemProps(row)}
              id={rowId(item.index)}
              index={item.index}
              top={item.start - HEADER_HEIGHT}
              height={rowHeight}
              measureRef={row.key === props.editingKey ? virtualizer.measureElement : undefined}
            />
          );
        })}
      </div>
    </div>
  );
}
