import { useTranslation } from 'react-i18next';
import { useDash } from '../../hooks/queries';
import { formatBytes } from '../../lib/format';

/** The daemon's totals (`dash.get`): users, files, bytes stored, share links. */
export function Totals() {
  const { t, i18n } = useTranslation();
  const dash = useDash();
  const number = new Intl.NumberFormat(i18n.language);
  const value = (n: number | undefined) => (n === undefined ? '—' : number.format(n));
  const tiles = [
    { key: 'users', label: t('overview:totals.users'), value: value(dash.data?.users) },
    { key: 'files', label: t('overview:totals.files'), value: value(dash.data?.files) },
    { key: 'bytes', label: t('overview:totals.bytes'), value: dash.data ? formatBytes(dash.data.storage.usedBytes) : '—' },
    { key: 'shares', label: t('overview:totals.shares'), value: value(dash.data?.shares) },
  ];
  return (
    <dl className="overview-totals" aria-busy={dash.isPending}>
      {tiles.map((tile) => (
        <div key={tile.key} className="overview-totals__tile" data-total={tile.key}>
          <dt className="overview-totals__label">{tile.label}</dt>
          <dd className="overview-totals__value">{tile.value}</dd>
        </div>
      ))}
    </dl>
  );
}
