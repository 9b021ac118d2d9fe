import { CircleAlert, CircleCheck } from 'lucide-react';

/** The form's one message: what went wrong (an alert), or, with `tone="ok"`, what happened. */
export function FormProblem({ problem, tone = 'error' }: { problem: string | null; tone?: 'error' | 'ok' }) {
  if (!problem) return null;
  const Icon = tone === 'ok' ? CircleCheck : CircleAlert;
  return (
    <p className={`signin__note signin__note--${tone}`} role={tone === 'ok' ? 'status' : 'alert'}>
      <Icon size={16} aria-hidden="true" />
      <span>{problem}</span>
    </p>
  );
}
