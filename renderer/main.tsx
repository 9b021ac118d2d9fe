import { createRoot } from 'react-dom/client';
import { App } from './components/App/App';
import './styles/global.css';

createRoot(document.getElementById('root')!).render(<App />);
