/**
 * The words of the pages the daemon shows a person who is not signed in (a share link's
 * pages, a dead link; the site's own pages in page-words-site.ts), in the explorer's five
 * languages, chosen by the browser's Accept-Language (English when it names none of them). The explorer's own words live in
 * renderer/i18n; these pages run no script, so they are rendered here.
 */
import type { Context } from 'koa';
import { preferredLanguage, type UiLanguage } from '../../shared/languages.js';
import { SITE_WORDS, type SiteWords } from './page-words-site.js';

const EN = {
  sharedWith: 'shared with Nimbus',
  download: 'Download',
  deadLinkTitle: 'Link not found',
  deadLinkMessage: 'This link does not exist or is no longer shared. Ask the person who sent it for a new one.',
  nothingHereTitle: 'Not in this folder',
  nothingHereMessage: 'There is nothing by that name in the shared folder (any more). Go back to the folder’s page.',
  passwordTitle: 'Password needed',
  passwordHeading: 'This link asks for a password',
  passwordLead: 'Type the password the person who shared it gave you.',
  passwordWrong: 'That password is not right.',
  password: 'Password',
  open: 'Open',
  folders: 'Folders',
  counts: (folders: number, files: number) =>
    `${folders} ${folders === 1 ? 'folder' : 'folders'} · ${files} ${files === 1 ? 'file' : 'files'}`,
  name: 'Name',
  size: 'Size',
  modified: 'Modified',
  downloadNamed: (name: string) => `Download ${name}`,
  downloadZip: 'Download all as .zip',
  emptyFolder: 'This folder is empty.',
  sendTitle: 'Send a file',
  sendLead: 'The file goes to the person who sent you this link. You cannot see what others have sent.',
  file: 'File',
  upload: 'Upload',
  sentTitle: 'Thank you',
  sent: (name: string) => `“${name}” was sent.`,
  sendAnother: 'Send another file',
};

type ShareWords = typeof EN;
/** Every word of the daemon's pages: a share link's (here) and the site's own (page-words-site.ts). */
export type PageWords = ShareWords & SiteWords;
export type PageLang = UiLanguage;

const CS: ShareWords = {
  sharedWith: 'sdíleno přes Nimbus',
  download: 'Stáhnout',
  deadLinkTitle: 'Odkaz nenalezen',
  deadLinkMessage: 'Tento odkaz neexistuje nebo už není sdílen. Požádejte toho, kdo vám ho poslal, o nový.',
  nothingHereTitle: 'V této složce není',
  nothingHereMessage: 'Ve sdílené složce nic takového (už) není. Vraťte se na stránku složky.',
  passwordTitle: 'Je potřeba heslo',
  passwordHeading: 'Tento odkaz vyžaduje heslo',
  passwordLead: 'Zadejte heslo, které vám dal ten, kdo odkaz sdílel.',
  passwordWrong: 'Toto heslo není správné.',
  password: 'Heslo',
  open: 'Otevřít',
  folders: 'Složky',
  counts: (folders, files) => `Složky: ${folders} · soubory: ${files}`,
  name: 'Název',
  size: 'Velikost',
  modified: 'Změněno',
  downloadNamed: (name) => `Stáhnout ${name}`,
  downloadZip: 'Stáhnout vše jako .zip',
  emptyFolder: 'Tato složka je prázdná.',
  sendTitle: 'Poslat soubor',
  sendLead: 'Soubor dostane ten, kdo vám poslal tento odkaz. Co poslali ostatní, neuvidíte.',
  file: 'Soubor',
  upload: 'Nahrát',
  sentTitle: 'Děkujeme',
  sent: (name) => `„${name}“ byl odeslán.`,
  sendAnother: 'Poslat další soubor',
};

const ES: ShareWords = {
  sharedWith: 'compartido con Nimbus',
  download: 'Descargar',
  deadLinkTitle: 'Enlace no encontrado',
  deadLinkMessage: 'Este enlace no existe o ya no se comparte. Pide uno nuevo a quien te lo envió.',
  nothingHereTitle: 'No está en esta carpeta',
  nothingHereMessage: 'No hay (o ya no hay) nada con ese nombre en la carpeta compartida. Vuelve a la página de la carpeta.',
  passwordTitle: 'Se necesita contraseña',
  passwordHeading: 'Este enlace pide una contraseña',
  passwordLead: 'Escribe la contraseña que te dio quien lo compartió.',
  passwordWrong: 'Esa contraseña no es correcta.',
  password: 'Contraseña',
  open: 'Abrir',
  folders: 'Carpetas',
  counts: (folders, files) => `${folders} ${folders === 1 ? 'carpeta' : 'carpetas'} · ${files} ${files === 1 ? 'archivo' : 'archivos'}`,
  name: 'Nombre',
  size: 'Tamaño',
  modified: 'Modificado',
  downloadNamed: (name) => `Descargar ${name}`,
  downloadZip: 'Descargar todo como .zip',
  emptyFolder: 'Esta carpeta está vacía.',
  sendTitle: 'Enviar un archivo',
  sendLead: 'El archivo le llega a quien te envió este enlace. No puedes ver lo que han enviado otros.',
  file: 'Archivo',
  upload: 'Subir',
  sentTitle: 'Gracias',
  sent: (name) => `Se ha enviado «${name}».`,
  sendAnother: 'Enviar otro archivo',
};

const JA: ShareWords = {
  sharedWith: 'Nimbus で共有',
  download: 'ダウンロード',
  deadLinkTitle: 'リンクが見つかりません',
  deadLinkMessage: 'このリンクは存在しないか、共有が終了しています。送ってくれた人に新しいリンクを頼んでください。',
  nothingHereTitle: 'このフォルダーにはありません',
  nothingHereMessage: '共有フォルダーにその名前のものはありません（もうありません）。フォルダーのページに戻ってください。',
  passwordTitle: 'パスワードが必要です',
  passwordHeading: 'このリンクにはパスワードが必要です',
  passwordLead: '共有した人から伝えられたパスワードを入力してください。',
  passwordWrong: 'パスワードが正しくありません。',
  password: 'パスワード',
  open: '開く',
  folders: 'フォルダー',
  counts: (folders, files) => `フォルダー ${folders} 個 · ファイル ${files} 個`,
  name: '名前',
  size: 'サイズ',
  modified: '更新日',
  downloadNamed: (name) => `${name} をダウンロード`,
  downloadZip: 'すべて .zip でダウンロード',
  emptyFolder: 'このフォルダーは空です。',
  sendTitle: 'ファイルを送る',
  sendLead: 'ファイルはこのリンクを送ってくれた人に届きます。ほかの人が送ったものは見えません。',
  file: 'ファイル',
  upload: 'アップロード',
  sentTitle: 'ありがとうございます',
  sent: (name) => `「${name}」を送信しました。`,
  sendAnother: '別のファイルを送る',
};

const NB: ShareWords = {
  sharedWith: 'delt med Nimbus',
  download: 'Last ned',
  deadLinkTitle: 'Fant ikke lenken',
  deadLinkMessage: 'Denne lenken finnes ikke eller deles ikke lenger. Be den som sendte den om en ny.',
  nothingHereTitle: 'Ikke i denne mappen',
  nothingHereMessage: 'Det finnes ikke (lenger) noe med det navnet i den delte mappen. Gå tilbake til mappens side.',
  passwordTitle: 'Passord kreves',
  passwordHeading: 'Denne lenken krever passord',
  passwordLead: 'Skriv passordet du fikk av den som delte den.',
  passwordWrong: 'Passordet er feil.',
  password: 'Passord',
  open: 'Åpne',
  folders: 'Mapper',
  counts: (folders, files) => `${folders} ${folders === 1 ? 'mappe' : 'mapper'} · ${files} ${files === 1 ? 'fil' : 'filer'}`,
  name: 'Navn',
  size: 'Størrelse',
  modified: 'Endret',
  downloadNamed: (name) => `Last ned ${name}`,
  downloadZip: 'Last ned alt som .zip',
  emptyFolder: 'Denne mappen er tom.',
  sendTitle: 'Send en fil',
  sendLead: 'Filen går til den som sendte deg denne lenken. Du kan ikke se hva andre har sendt.',
  file: 'Fil',
  upload: 'Last opp',
  sentTitle: 'Takk',
  sent: (name) => `«${name}» ble sendt.`,
  sendAnother: 'Send en fil til',
};

const SHARE_WORDS: Record<PageLang, ShareWords> = { en: EN, cs: CS, es: ES, ja: JA, nb: NB };

/** The language a request's reader asked for (by q) among the five; English when none of them. */
export const readerLanguage = (ctx: Pick<Context, 'get'>): PageLang => preferredLanguage(ctx.get('Accept-Language'));

/** The language and words of a request's pages. */
export function pageWords(ctx: Pick<Context, 'get'>): { lang: PageLang; w: PageWords } {
  const lang = readerLanguage(ctx);
  return { lang, w: { ...SHARE_WORDS[lang], ...SITE_WORDS[lang] } };
}
