// Global styles first, so component styles (imported by the components) come after them and win.
import './styles/global.css';
// Languages before any component renders a string.
import './i18n';
import { createRoot } from 'react-dom/client';
import { App } from './components/App/App';
import { followAppearanceInShell } from './lib/shellAppearance';

// Inside the desktop shell, its menus, tray and window follow the explorer's language and theme.
followAppearanceInShell();
createRoot(document.getElementById('root')!).render(<App />);
