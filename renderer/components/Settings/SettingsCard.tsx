import { useId, type ReactNode } from 'react';

/** One section of Settings: a titled card. */
export function SettingsCard({ title, lead, children }: { title: string; lead?: ReactNode; children: ReactNode }) {
  const id = useId();
  return (
    <section className="settings__card" aria-labelledby={id}>
      <h2 id={id}>{title}</h2>
      {lead ? <p className="settings__lead">{lead}</p> : null}
      {children}
    </section>
  );
}
