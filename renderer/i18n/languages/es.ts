/// <reference types="vite/client" />
import type { ResourceLanguage } from 'i18next';

/** Spanish, every namespace: one chunk of the build, loaded only when the UI is in Spanish (../index.ts). */
export default import.meta.glob<ResourceLanguage>('../locales/es/*.json', { eager: true, import: 'default' });
