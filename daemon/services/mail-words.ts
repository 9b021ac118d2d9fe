/**
 * The words of the mails the daemon sends (the address confirmation, the password reset), in
 * the explorer's five languages. A mail is in the language of the request that caused it, when
 * the person it goes to made that request (shared/languages.ts reads it); otherwise English.
 * verification.ts and password-reset.ts put the link and the user's name around these words.
 */
import type { UiLanguage } from '../../shared/languages.js';

const EN = {
  hello: (name: string) => `Hello ${name},`,
  verifySubject: 'Confirm your e-mail address for Nimbus',
  verifyLead: 'open this link to confirm your e-mail address:',
  verifyButton: 'Confirm your e-mail address',
  verifyValid: 'The link is valid for 24 hours.',
  resetSubject: 'Reset your Nimbus password',
  resetLead: 'someone (hopefully you) asked to reset your Nimbus password.',
  resetOpen: 'Open this link to choose a new one:',
  resetButton: 'Choose a new password',
  resetValid: 'The link is valid for 1 hour and works once.',
  resetIgnore: 'If you did not ask for it, ignore this mail: your password stays as it is.',
};

export type MailWords = typeof EN;

const CS: MailWords = {
  hello: (name) => `Dobrý den, ${name},`,
  verifySubject: 'Potvrďte svou e-mailovou adresu pro Nimbus',
  verifyLead: 'otevřením tohoto odkazu potvrdíte svou e-mailovou adresu:',
  verifyButton: 'Potvrdit e-mailovou adresu',
  verifyValid: 'Odkaz platí 24 hodin.',
  resetSubject: 'Obnovení hesla k Nimbusu',
  resetLead: 'někdo (snad vy) požádal o obnovení vašeho hesla k Nimbusu.',
  resetOpen: 'Nové heslo zvolíte po otevření tohoto odkazu:',
  resetButton: 'Zvolit nové heslo',
  resetValid: 'Odkaz platí 1 hodinu a funguje jen jednou.',
  resetIgnore: 'Pokud jste o to nežádali, tento e-mail ignorujte: vaše heslo zůstane beze změny.',
};

const ES: MailWords = {
  hello: (name) => `Hola, ${name}:`,
  verifySubject: 'Confirma tu dirección de correo para Nimbus',
  verifyLead: 'abre este enlace para confirmar tu dirección de correo:',
  verifyButton: 'Confirmar tu dirección de correo',
  verifyValid: 'El enlace es válido durante 24 horas.',
  resetSubject: 'Restablece tu contraseña de Nimbus',
  resetLead: 'alguien (esperamos que tú) ha pedido restablecer tu contraseña de Nimbus.',
  resetOpen: 'Abre este enlace para elegir una nueva:',
  resetButton: 'Elegir una contraseña nueva',
  resetValid: 'El enlace es válido durante 1 hora y funciona una sola vez.',
  resetIgnore: 'Si no lo has pedido tú, ignora este correo: tu contraseña sigue igual.',
};

const JA: MailWords = {
  hello: (name) => `${name} さん`,
  verifySubject: 'Nimbus のメールアドレスを確認してください',
  verifyLead: '次のリンクを開いて、メールアドレスを確認してください。',
  verifyButton: 'メールアドレスを確認する',
  verifyValid: 'このリンクの有効期限は 24 時間です。',
  resetSubject: 'Nimbus のパスワードの再設定',
  resetLead: 'Nimbus のパスワードの再設定が依頼されました（ご本人によるものであれば幸いです）。',
  resetOpen: '次のリンクを開いて、新しいパスワードを選んでください。',
  resetButton: '新しいパスワードを選ぶ',
  resetValid: 'このリンクの有効期限は 1 時間で、使えるのは 1 回だけです。',
  resetIgnore: '心当たりがない場合は、このメールを無視してください。パスワードは変わりません。',
};

const NB: MailWords = {
  hello: (name) => `Hei ${name},`,
  verifySubject: 'Bekreft e-postadressen din for Nimbus',
  verifyLead: 'åpne denne lenken for å bekrefte e-postadressen din:',
  verifyButton: 'Bekreft e-postadressen din',
  verifyValid: 'Lenken er gyldig i 24 timer.',
  resetSubject: 'Tilbakestill Nimbus-passordet ditt',
  resetLead: 'noen (forhåpentligvis du) har bedt om å tilbakestille Nimbus-passordet ditt.',
  resetOpen: 'Åpne denne lenken for å velge et nytt:',
  resetButton: 'Velg et nytt passord',
  resetValid: 'Lenken er gyldig i 1 time og virker én gang.',
  resetIgnore: 'Hvis du ikke ba om dette, kan du se bort fra denne e-posten: passordet ditt forblir som det er.',
};

const WORDS: Record<UiLanguage, MailWords> = { en: EN, cs: CS, es: ES, ja: JA, nb: NB };

/** The words of a mail in `lang`. */
export const mailWords = (lang: UiLanguage): MailWords => WORDS[lang];
