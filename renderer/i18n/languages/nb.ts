/// <reference types="vite/client" />
import type { ResourceLanguage } from 'i18next';

/** Norwegian Bokmål, every namespace: one chunk of the build, loaded only when the UI is in Norwegian Bokmål (../index.ts). */
export default import.meta.glob<ResourceLanguage>('../locales/nb/*.json', { eager: true, import: 'default' });
