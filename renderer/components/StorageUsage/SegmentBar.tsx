import type { Segment } from './usageSegments';

interface SegmentBarProps<Name extends string> {
  segments: readonly Segment<Name>[];
  /** The whole picture in words: what a screen reader says instead of the bar. */
  label: string;
  /** Where the quota ends, when the bar runs past it. */
  mark?: number | null;
  markLabel?: string;
}

/**
 * One horizontal bar cut into named parts. Each part's look (colour and pattern) comes from
 * `usage-swatch--<name>`, which the legend's swatches share, so a part is told apart by its
 * pattern and its label too, not by colour alone. The bar itself is an image with a text
 * equivalent; the legend beside it shows the same values as text.
 */
export function SegmentBar<Name extends string>({ segments, label, mark = null, markLabel }: SegmentBarProps<Name>) {
  return (
    <div className="usage-bar" role="img" aria-label={label} title={label}>
      <div className="usage-bar__track">
        {segments
          .filter((segment) => segment.fraction > 0)
          .map((segment) => (
            <span
              key={segment.name}
              className={`usage-bar__part usage-swatch usage-swatch--${segment.name}`}
              style={{ flexGrow: segment.fraction, flexBasis: 0 }}
              data-part={segment.name}
            />
          ))}
      </div>
      {mark !== null ? <span className="usage-bar__mark" style={{ left: `${mark * 100}%` }} title={markLabel} /> : null}
    </div>
  );
}
