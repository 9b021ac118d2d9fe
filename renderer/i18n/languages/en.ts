/// <reference types="vite/client" />
import type { ResourceLanguage } from 'i18next';

/** English, every namespace: one chunk of the build, loaded only when the UI is in English (../index.ts). */
export default import.meta.glob<ResourceLanguage>('../locales/en/*.json', { eager: true, import: 'default' });
