/**
 * The words of the daemon's own small pages (not a share link's): the e-mail confirmation
 * page, its used link, and the page for an address that is nothing. page-words.ts joins them
 * to a share link's words and picks the reader's language.
 */
import type { UiLanguage } from '../../shared/languages.js';

const EN = {
  confirmedTitle: 'E-mail address confirmed',
  confirmedMessage: (name: string) => `Thank you, ${name}. Your e-mail address is verified; you can close this page.`,
  usedLinkTitle: 'Link expired or already used',
  usedLinkMessage: 'Ask for a new verification e-mail.',
  noSuchPageTitle: 'Page not found',
  noSuchPageMessage: 'There is no page at this address. Open Nimbus from its start page.',
};

export type SiteWords = typeof EN;

const CS: SiteWords = {
  confirmedTitle: 'E-mailová adresa potvrzena',
  confirmedMessage: (name) => `Děkujeme, ${name}. Vaše e-mailová adresa je ověřena; tuto stránku můžete zavřít.`,
  usedLinkTitle: 'Odkaz vypršel nebo už byl použit',
  usedLinkMessage: 'Požádejte o nový ověřovací e-mail.',
  noSuchPageTitle: 'Stránka nenalezena',
  noSuchPageMessage: 'Na této adrese žádná stránka není. Otevřete Nimbus z jeho úvodní stránky.',
};

const ES: SiteWords = {
  confirmedTitle: 'Dirección de correo confirmada',
  confirmedMessage: (name) => `Gracias, ${name}. Tu dirección de correo está verificada; puedes cerrar esta página.`,
  usedLinkTitle: 'Enlace caducado o ya usado',
  usedLinkMessage: 'Pide un nuevo correo de verificación.',
  noSuchPageTitle: 'Página no encontrada',
  noSuchPageMessage: 'No hay ninguna página en esta dirección. Abre Nimbus desde su página de inicio.',
};

const JA: SiteWords = {
  confirmedTitle: 'メールアドレスを確認しました',
  confirmedMessage: (name) => `${name} さん、ありがとうございます。メールアドレスの確認が完了しました。このページは閉じてかまいません。`,
  usedLinkTitle: 'リンクの有効期限が切れたか、すでに使われています',
  usedLinkMessage: '確認メールをもう一度送るよう依頼してください。',
  noSuchPageTitle: 'ページが見つかりません',
  noSuchPageMessage: 'このアドレスにページはありません。Nimbus をスタートページから開いてください。',
};

const NB: SiteWords = {
  confirmedTitle: 'E-postadressen er bekreftet',
  confirmedMessage: (name) => `Takk, ${name}. E-postadressen din er bekreftet; du kan lukke denne siden.`,
  usedLinkTitle: 'Lenken er utløpt eller allerede brukt',
  usedLinkMessage: 'Be om en ny bekreftelses-e-post.',
  noSuchPageTitle: 'Fant ikke siden',
  noSuchPageMessage: 'Det finnes ingen side på denne adressen. Åpne Nimbus fra startsiden.',
};

export const SITE_WORDS: Record<UiLanguage, SiteWords> = { en: EN, cs: CS, es: ES, ja: JA, nb: NB };
