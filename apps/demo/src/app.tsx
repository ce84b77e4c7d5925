import { ResumableDevtoolsPanel } from '@resumable/devtools/production';
import { useResumableChat } from '@resumable/hooks';
import {
  type ThreadEntry,
  type ThreadsController,
  useThreads,
  useTrackThread,
} from '@resumable/hooks/threads';
import { ResumableChatView } from '@resumable/ui';
import { useEffect, useRef, useState } from 'react';
import { ChaosPanel } from './chaos-panel.js';
import { ServerRunButton } from './server-run.js';
import { ThreadsPanel } from './thread-list.js';
import { syncUrl, useCurrentThread } from './threads.js';
import { onWire } from './wire.js';

/** Where the demo's API lives (Vite proxies it to the API server). */
const ENDPOINT = '/api';

const PROMPTS = [
  'Write a long answer: how does this chat survive a reload?',
  'What time is it?',
  'Show me a TypeScript example with a code block.',
  // The scripted agent asks for approval before it "deletes" (human in the loop, #13).
  'Delete the old draft (it asks for your approval first)',
];

/** On a narrow screen the side panels fold behind these buttons (see demo.css). */
type Panel = 'threads' | 'side';

export function App() {
  const threads = useThreads({ endpoint: ENDPOINT });
  const [currentId, select] = useCurrentThread(threads);
  // The entry last seen for the current id: the chat stays up if the entry leaves the list
  // (deleted in another tab) until the user picks another conversation.
  const seen = useRef<ThreadEntry | undefined>(undefined);
  const found = threads.threads.find((t) => t.id === currentId);
  if (found) seen.current = found;
  const current = found ?? (seen.current?.id === currentId ? seen.current : undefined);
  const [open, setOpen] = useState<Panel | null>(null);
  const toggle = (panel: Panel) => setOpen((now) => (now === panel ? null : panel));
  // Esc closes an open drawer (and only then: otherwise Esc belongs to the chat's Stop).
  useEffect(() => {
    if (open === null) return;
    const onKey = (e: KeyboardEvent) => {
      if (e.key === 'Escape') setOpen(null);
    };
    document.addEventListener('keydown', onKey);
    return () => document.removeEventListener('keydown', onKey);
  }, [open]);
  return (
    <div className="demo">
      <header className="demo-header">
        <button
          type="button"
          className="demo-toggle"
          aria-expanded={open === 'threads'}
          aria-controls="demo-threads"
          onClick={() => toggle('threads')}
        >
          Chats
        </button>
        <h1>Resumable</h1>
        <p>AI answers that arrive whole, exactly once — reload, go offline, restart the server.</p>
        <button
          type="button"
          className="demo-toggle"
          aria-expanded={open === 'side'}
          aria-controls="demo-side"
          onClick={() => toggle('side')}
        >
          Chaos &amp; inspector
        </button>
      </header>
      <ThreadsPanel
        threads={threads}
        current={current}
        open={open === 'threads'}
        onSelect={(id) => {
          select(id);
          setOpen(null);
        }}
        onRemoved={(id) => {
          if (id !== currentId) return;
          const next = threads.threads.find((t) => t.id !== id);
          if (next) select(next.id);
          else void threads.create().then(select);
        }}
      />
      {/* A fresh chat per conversation: switching threads never mixes two sessions. */}
      {current ? (
        <Chat key={current.id} entry={current} threads={threads} sideOpen={open === 'side'} />
      ) : null}
    </div>
  );
}

function Chat({
  entry,
  threads,
  sideOpen,
}: {
  entry: ThreadEntry;
  threads: ThreadsController;
  sideOpen: boolean;
}) {
  // The thread this chat was opened on; a draft learns its id from its first run, and
  // must not be re-mounted when it does.
  const [{ threadId, token }] = useState(entry);
  // Keyed by the local entry (stable from creation), so a draft's persisted run is found
  // again after a reload, and tabs sharing the list share the record.
  const chat = useResumableChat({
    endpoint: ENDPOINT,
    key: entry.id,
    ...(threadId ? { threadId } : {}),
    ...(token ? { token } : {}),
  });

  // The list learns the thread, its token, its title (the first prompt) and activity.
  useTrackThread(threads, entry.id, chat);
  // The run's answer carries the thread's token: keep it for the "another device" link.
  const { touch } = threads;
  useEffect(
    () =>
      onWire((event) => {
        if (event.kind === 'run') {
          void touch(entry.id, { threadId: event.threadId, token: event.token });
        }
      }),
    [entry.id, touch],
  );
  useEffect(() => syncUrl(entry.threadId), [entry.threadId]);

  return (
    <>
      <main className="demo-main">
        <fieldset className="demo-prompts">
          <legend className="demo-sr-only">Suggested prompts</legend>
          {PROMPTS.map((prompt) => (
            <button
              key={prompt}
              type="button"
              disabled={chat.isStreaming}
              onClick={() => void chat.send(prompt)}
            >
              {prompt}
            </button>
          ))}
          <ServerRunButton
            threadId={chat.threadId ?? entry.threadId}
            token={entry.token ?? null}
            disabled={chat.isStreaming}
          />
        </fieldset>
        <ResumableChatView controller={chat} className="demo-chat" autoFocus />
      </main>
      <aside
        id="demo-side"
        className="demo-side"
        aria-label="Chaos and inspector"
        data-open={sideOpen || undefined}
      >
        <ChaosPanel runId={chat.runId} />
        {/* The inspector is @resumable/devtools' panel, as an app of yours would show it
            (from /production: the demo's build is a production build). */}
        <div className="demo-panel demo-inspector">
          <ResumableDevtoolsPanel initialKey={entry.id} />
        </div>
      </aside>
    </>
  );
}
