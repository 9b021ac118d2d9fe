/// <reference types="vite/client" />
import type { ResourceLanguage } from 'i18next';

/** Czech, every namespace: one chunk of the build, loaded only when the UI is in Czech (../index.ts). */
export default import.meta.glob<ResourceLanguage>('../locales/cs/*.json', { eager: true, import: 'default' });
