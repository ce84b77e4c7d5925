import '@resumable/ui/styles.css';
import './ai-sdk.css';
import { StrictMode, Suspense } from 'react';
import { createRoot } from 'react-dom/client';
import { AiSdkApp } from './app.js';

createRoot(document.getElementById('root')!).render(
  <StrictMode>
    <Suspense fallback={<p>Loading…</p>}>
      <AiSdkApp />
    </Suspense>
  </StrictMode>,
);
