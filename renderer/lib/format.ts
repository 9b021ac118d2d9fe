const UNITS = ['B', 'KB', 'MB', 'GB', 'TB'] as const;
export const MIB = 1024 * 1024;

/** Bytes in binary units with at most one decimal: "0 B", "900 B", "1.5 KB", "12 MB". */
export function formatBytes(bytes: number): string {
  if (!Number.isFinite(bytes) || bytes < 0) return '—';
  let value = bytes;
  let unit = 0;
  while (value >= 1024 && unit < UNITS.length - 1) {
    value /= 1024;
    unit += 1;
  }
  if (unit === 0) return `${bytes} B`;
  const rounded = value >= 100 || Number.isInteger(Math.round(value * 10) / 10) ? Math.round(value) : Math.round(value * 10) / 10;
  return `${rounded} ${UNITS[unit]}`;
}

/** A role quota given in MiB: "Unlimited", "512 MB", "2 GB", "1.5 GB". */
export function formatQuotaMb(mb: number): string {
  if (mb < 0) return 'Unlimited';
  if (mb >= 1024) {
    const gb = Math.round((mb / 1024) * 100) / 100;
    return `${gb} GB`;
  }
  return `${mb} MB`;
}

const dateFormat = new Intl.DateTimeFormat(undefined, { day: 'numeric', month: 'short', year: 'numeric' });
const timeFormat = new Intl.DateTimeFormat(undefined, { hour: '2-digit', minute: '2-digit' });
const fullFormat = new Intl.DateTimeFormat(undefined, { dateStyle: 'full', timeStyle: 'medium' });

/** "Today, 14:02", "Yesterday, 09:10" or "3 Mar 2025". */
export function formatModified(iso: string, now: Date = new Date()): string {
  const date = new Date(iso);
  if (Number.isNaN(date.getTime())) return '—';
  const startOfToday = new Date(now.getFullYear(), now.getMonth(), now.getDate()).getTime();
  const day = 24 * 60 * 60 * 1000;
  if (date.getTime() >= startOfToday && date.getTime() < startOfToday + day) return `Today, ${timeFormat.format(date)}`;
  if (date.getTime() >= startOfToday - day && date.getTime() < startOfToday) return `Yesterday, ${timeFormat.format(date)}`;
  return dateFormat.format(date);
}

export function formatFullDate(iso: string): string {
  const date = new Date(iso);
  return Number.isNaN(date.getTime()) ? '' : fullFormat.format(date);
}

export function plural(count: number, one: string, many = `${one}s`): string {
  return `${count.toLocaleString()} ${count === 1 ? one : many}`;
}

/** Two letters for an avatar: "ana.lopez" → "AL", "bob" → "BO". */
export function initials(name: string): string {
  const parts = name.split(/[._\-\s]+/).filter(Boolean);
  if (parts.length >= 2) return (parts[0][0] + parts[1][0]).toUpperCase();
  return (name.slice(0, 2) || '?').toUpperCase();
}

/** A stable hue for a name, so each user keeps their avatar colour. */
export function hueFor(name: string): number {
  let hash = 0;
  for (const char of name) hash = (hash * 31 + char.codePointAt(0)!) >>> 0;
  return hash % 360;
}

export type QuotaLevel = 'ok' | 'near' | 'over';

/** Warning starts at 85 % of the quota; an unlimited quota never warns. */
export function quotaLevel(usedBytes: number, maxBytes: number, overQuota = false): QuotaLevel {
  if (overQuota) return 'over';
  if (maxBytes < 0) return 'ok';
  if (maxBytes === 0) return usedBytes > 0 ? 'over' : 'near';
  if (usedBytes > maxBytes) return 'over';
  return usedBytes / maxBytes >= 0.85 ? 'near' : 'ok';
}
