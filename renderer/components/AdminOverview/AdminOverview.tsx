/** The admin's landing page: every user's usage against their quota, totals and live activity. */
export function AdminOverview({ onOpenUser }: { onOpenUser?: (username: string) => void } = {}) {
  void onOpenUser;
  return <section className="admin-overview" />;
}
