/**
 * The words of the application menu and the tray, in the explorer's five languages, picked by
 * the operating system's locale (shared/languages.ts). Items with an Electron role (Copy,
 * Paste, Zoom In…) are left to Electron, which words them in the system's language itself.
 * The menu's items are in title case on English menus, the tray's in sentence case, as before.
 */
import { preferredLanguage, type UiLanguage } from '../shared/languages.js';

const EN = {
  file: 'File',
  edit: 'Edit',
  view: 'View',
  window: 'Window',
  help: 'Help',
  quit: 'Quit',
  quitNimbus: 'Quit Nimbus',
  openStorage: 'Open Storage Folder',
  openLogs: 'Open Log Folder',
  openInBrowser: 'Open in Browser',
  openNimbusInBrowser: 'Open Nimbus in Browser',
  copyKey: 'Copy API Key',
  closeWindow: 'Close Window',
  trayOpen: 'Open Nimbus',
  trayStorage: 'Open storage folder',
  trayLogs: 'Open log folder',
  trayCopyKey: 'Copy API key',
  trayTooltip: (url: string) => `Nimbus — running at ${url}`,
  couldNotStart: 'Nimbus could not start',
};

export type MenuWords = typeof EN;

const CS: MenuWords = {
  file: 'Soubor',
  edit: 'Úpravy',
  view: 'Zobrazení',
  window: 'Okno',
  help: 'Nápověda',
  quit: 'Ukončit',
  quitNimbus: 'Ukončit Nimbus',
  openStorage: 'Otevřít složku úložiště',
  openLogs: 'Otevřít složku protokolů',
  openInBrowser: 'Otevřít v prohlížeči',
  openNimbusInBrowser: 'Otevřít Nimbus v prohlížeči',
  copyKey: 'Kopírovat klíč API',
  closeWindow: 'Zavřít okno',
  trayOpen: 'Otevřít Nimbus',
  trayStorage: 'Otevřít složku úložiště',
  trayLogs: 'Otevřít složku protokolů',
  trayCopyKey: 'Kopírovat klíč API',
  trayTooltip: (url) => `Nimbus — běží na ${url}`,
  couldNotStart: 'Nimbus se nepodařilo spustit',
};

const ES: MenuWords = {
  file: 'Archivo',
  edit: 'Edición',
  view: 'Ver',
  window: 'Ventana',
  help: 'Ayuda',
  quit: 'Salir',
  quitNimbus: 'Salir de Nimbus',
  openStorage: 'Abrir carpeta de almacenamiento',
  openLogs: 'Abrir carpeta de registros',
  openInBrowser: 'Abrir en el navegador',
  openNimbusInBrowser: 'Abrir Nimbus en el navegador',
  copyKey: 'Copiar clave de API',
  closeWindow: 'Cerrar ventana',
  trayOpen: 'Abrir Nimbus',
  trayStorage: 'Abrir carpeta de almacenamiento',
  trayLogs: 'Abrir carpeta de registros',
  trayCopyKey: 'Copiar clave de API',
  trayTooltip: (url) => `Nimbus — en marcha en ${url}`,
  couldNotStart: 'Nimbus no se pudo iniciar',
};

const JA: MenuWords = {
  file: 'ファイル',
  edit: '編集',
  view: '表示',
  window: 'ウインドウ',
  help: 'ヘルプ',
  quit: '終了',
  quitNimbus: 'Nimbus を終了',
  openStorage: 'ストレージフォルダーを開く',
  openLogs: 'ログフォルダーを開く',
  openInBrowser: 'ブラウザーで開く',
  openNimbusInBrowser: 'Nimbus をブラウザーで開く',
  copyKey: 'API キーをコピー',
  closeWindow: 'ウインドウを閉じる',
  trayOpen: 'Nimbus を開く',
  trayStorage: 'ストレージフォルダーを開く',
  trayLogs: 'ログフォルダーを開く',
  trayCopyKey: 'API キーをコピー',
  trayTooltip: (url) => `Nimbus — ${url} で実行中`,
  couldNotStart: 'Nimbus を起動できませんでした',
};

const NB: MenuWords = {
  file: 'Fil',
  edit: 'Rediger',
  view: 'Vis',
  window: 'Vindu',
  help: 'Hjelp',
  quit: 'Avslutt',
  quitNimbus: 'Avslutt Nimbus',
  openStorage: 'Åpne lagringsmappen',
  openLogs: 'Åpne loggmappen',
  openInBrowser: 'Åpne i nettleseren',
  openNimbusInBrowser: 'Åpne Nimbus i nettleseren',
  copyKey: 'Kopier API-nøkkel',
  closeWindow: 'Lukk vinduet',
  trayOpen: 'Åpne Nimbus',
  trayStorage: 'Åpne lagringsmappen',
  trayLogs: 'Åpne loggmappen',
  trayCopyKey: 'Kopier API-nøkkel',
  trayTooltip: (url) => `Nimbus — kjører på ${url}`,
  couldNotStart: 'Nimbus kunne ikke starte',
};

/** Every language's words, for the test that checks each has every one. */
export const MENU_WORDS: Record<UiLanguage, MenuWords> = { en: EN, cs: CS, es: ES, ja: JA, nb: NB };

/** The menus' words for a system locale (`app.getLocale()`: `cs`, `en-US`, `nb`…); English when Nimbus does not speak it. */
export const menuWords = (locale: string): MenuWords => MENU_WORDS[preferredLanguage(locale)];
