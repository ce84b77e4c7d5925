// First: the wire tap must wrap `fetch` before the client kit is loaded.
import './wire.js';
import '@resumable/ui/styles.css';
import './demo.css';
import { StrictMode } from 'react';
import { createRoot } from 'react-dom/client';
import { App } from './app.js';

createRoot(document.getElementById('root')!).render(
  <StrictMode>
    <App />
  </StrictMode>,
);
