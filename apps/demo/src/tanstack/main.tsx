/**
 * The Resumable devtools as a tab of the TanStack Devtools shell (`/tanstack.html`): the
 * kit's chat, and `<TanStackDevtools plugins={[resumableDevtoolsPlugin()]} />` beside it, as
 * an app that already uses the shell adds them. From `/production`, the demo's build being
 * a production build.
 */
import '@resumable/ui/styles.css';
import { resumableDevtoolsPlugin } from '@resumable/devtools/production';
import { useResumableChat } from '@resumable/hooks';
import { ResumableChatView } from '@resumable/ui';
import { TanStackDevtools } from '@tanstack/react-devtools';
import { StrictMode } from 'react';
import { createRoot } from 'react-dom/client';

// Made where the app starts: recording begins now, before the shell's tab is opened.
const plugins = [resumableDevtoolsPlugin({ initialKey: 'tanstack', defaultOpen: true })];

function App() {
  const chat = useResumableChat({ endpoint: '/api', key: 'tanstack' });
  return (
    // The top half: the shell opens over the bottom of the page.
    <main style={{ height: '50vh', display: 'flex', flexDirection: 'column' }}>
      <h1 style={{ font: '600 1rem system-ui', margin: 8 }}>
        Resumable in the TanStack Devtools shell
      </h1>
      <div style={{ flex: 1, minHeight: 0, display: 'flex', flexDirection: 'column' }}>
        <ResumableChatView controller={chat} autoFocus />
      </div>
      <TanStackDevtools plugins={plugins} config={{ defaultOpen: true }} />
    </main>
  );
}

createRoot(document.getElementById('root')!).render(
  <StrictMode>
    <App />
  </StrictMode>,
);
