import { useTranslation } from 'react-i18next';
import { ActivityPanel } from './ActivityPanel';
import { Totals } from './Totals';
import { UsersByFill } from './UsersByFill';
import './AdminOverview.css';

interface AdminOverviewProps {
  /** Opens a user's files (the shell's navigation); without it, names are not links. */
  onOpenUser?: (username: string) => void;
}

/** The admin's landing page: totals, every user's usage against their role's quota (fullest first), and live activity. */
export function AdminOverview({ onOpenUser }: AdminOverviewProps = {}) {
  const { t } = useTranslation();
  return (
    <section className="admin-page overview" aria-labelledby="overview-title">
      <header className="admin-page__header overview__header">
        <h1 id="overview-title">{t('overview:title')}</h1>
        <p className="admin-page__lead">{t('overview:lead')}</p>
      </header>
      <div className="overview__scroll">
        <Totals />
        <div className="overview__panels">
          <UsersByFill onOpenUser={onOpenUser} />
          <ActivityPanel />
        </div>
      </div>
    </section>
  );
}
