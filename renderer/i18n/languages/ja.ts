/// <reference types="vite/client" />
import type { ResourceLanguage } from 'i18next';

/** Japanese, every namespace: one chunk of the build, loaded only when the UI is in Japanese (../index.ts). */
export default import.meta.glob<ResourceLanguage>('../locales/ja/*.json', { eager: true, import: 'default' });
