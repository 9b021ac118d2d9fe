/**
 * Numbers, sizes and dates for people, by `Intl` in the UI's current language
 * (docs/explorer.md, "Formatting"). Sizes use the API's binary units (B, KiB, MiB, GiB, TiB)
 * in every language: they are what the daemon's quotas and messages say.
 */
import i18next from 'i18next';
import { currentLanguage } from '../i18n';

const UNITS = ['B', 'KiB', 'MiB', 'GiB', 'TiB'] as const;
export const MIB = 1024 * 1024;

// Intl formatters are costly to build and a listing formats thousands of cells: one per language.
function cached<T>(make: (language: string) => T): () => T {
  const byLanguage = new Map<string, T>();
  return () => {
    const language = currentLanguage();
    let value = byLanguage.get(language);
    if (value === undefined) {
      value = make(language);
      byLanguage.set(language, value);
    }
    return value;
  };
}

const integerFormat = cached((lng) => new Intl.NumberFormat(lng, { maximumFractionDigits: 0 }));
const oneDecimalFormat = cached((lng) => new Intl.NumberFormat(lng, { maximumFractionDigits: 1 }));
const twoDecimalFormat = cached((lng) => new Intl.NumberFormat(lng, { maximumFractionDigits: 2 }));
const dateFormat = cached((lng) => new Intl.DateTimeFormat(lng, { day: 'numeric', month: 'short', year: 'numeric' }));
const timeFormat = cached((lng) => new Intl.DateTimeFormat(lng, { hour: 'numeric', minute: '2-digit' }));
const dateTimeFormat = cached((lng) => new Intl.DateTimeFormat(lng, { dateStyle: 'medium', timeStyle: 'short' }));
const fullFormat = cached((lng) => new Intl.DateTimeFormat(lng, { dateStyle: 'full', timeStyle: 'medium' }));

/** A count as the language writes it: "12,345" in English, "12 345" in Czech. */
export function formatNumber(value: number): string {
  return integerFormat().format(value);
}

/** Bytes in binary units with at most one decimal: "0 B", "900 B", "1.5 KiB", "12 MiB" ("1,5 KiB" in Czech). */
export function formatBytes(bytes: number): string {
  if (!Number.isFinite(bytes) || bytes < 0) return '—';
  let value = bytes;
  let unit = 0;
  while (value >= 1024 && unit < UNITS.length - 1) {
    value /= 1024;
    unit += 1;
  }
  if (unit === 0) return `${formatNumber(bytes)} B`;
  // Three significant digits at most: "123 MiB", not "123.4 MiB".
  const format = value >= 100 ? integerFormat() : oneDecimalFormat();
  return `${format.format(value)} ${UNITS[unit]}`;
}

/** A role quota given in MiB: "Unlimited", "512 MiB", "2 GiB", "1.5 GiB". */
export function formatQuotaMb(mb: number): string {
  if (mb < 0) return i18next.t('common:unlimited');
  if (mb >= 1024) return `${twoDecimalFormat().format(mb / 1024)} GiB`;
  return `${formatNumber(mb)} MiB`;
}

/** "Today, 14:02", "Yesterday, 09:10" or "3 Mar 2025", in the current language. */
export function formatModified(iso: string, now: Date = new Date()): string {
  const date = new Date(iso);
  if (Number.isNaN(date.getTime())) return '—';
  const startOfToday = new Date(now.getFullYear(), now.getMonth(), now.getDate()).getTime();
  const day = 24 * 60 * 60 * 1000;
  const time = date.getTime();
  if (time >= startOfToday && time < startOfToday + day) return i18next.t('common:today', { time: timeFormat().format(date) });
  if (time >= startOfToday - day && time < startOfToday) return i18next.t('common:yesterday', { time: timeFormat().format(date) });
  return dateFormat().format(date);
}

/** A day as the language writes it, short: "3 Mar 2025" ("—" for none or not a date). */
export function formatDate(iso: string): string {
  const date = new Date(iso);
  return Number.isNaN(date.getTime()) ? '—' : dateFormat().format(date);
}

/** A day and a time of day: "24 Dec 2026, 18:00". */
export function formatDateTime(iso: string): string {
  const date = new Date(iso);
  return Number.isNaN(date.getTime()) ? '—' : dateTimeFormat().format(date);
}

/** The whole date and time, for a tooltip. */
export function formatFullDate(iso: string): string {
  const date = new Date(iso);
  return Number.isNaN(date.getTime()) ? '' : fullFormat().format(date);
}

/**
 * "3 files": English only. Kept for components not yet translated; translated strings use
 * i18next's plurals (a `count` option) instead, since other languages have more forms.
 */
export function plural(count: number, one: string, many = `${one}s`): string {
  return `${formatNumber(count)} ${count === 1 ? one : many}`;
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
