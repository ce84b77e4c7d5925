import { StrictMode } from 'react';
import { createRoot } from 'react-dom/client';
import { AiSdkApp } from './app.js';

createRoot(document.getElementById('root')!).render(
  <StrictMode>
    <AiSdkApp />
  </StrictMode>,
);
