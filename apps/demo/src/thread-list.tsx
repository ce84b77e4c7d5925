import { useState } from 'react';
import { deviceLink, threads, useThreads } from './threads.js';

/**
 * New / switch conversations. The list lives in localStorage, shared by all tabs. On a
 * narrow screen it is a drawer (`open`), closed again once a conversation is picked.
 */
export function ThreadList({ open, onPicked }: { open: boolean; onPicked: () => void }) {
  const { threads: list, currentId } = useThreads();
  const current = list.find((t) => t.id === currentId);
  const [copied, setCopied] = useState(false);
  return (
    <nav
      id="demo-threads"
      className="demo-threads"
      aria-label="Conversations"
      data-open={open || undefined}
    >
      <button
        type="button"
        className="demo-new"
        onClick={() => {
          threads.create();
          onPicked();
        }}
      >
        New conversation
      </button>
      <ul>
        {list.map((thread) => (
          <li key={thread.id}>
            <button
              type="button"
              aria-current={thread.id === currentId ? 'page' : undefined}
              onClick={() => {
                threads.select(thread.id);
                onPicked();
              }}
              title={thread.threadId ?? 'not started yet'}
            >
              {thread.title}
            </button>
          </li>
        ))}
      </ul>
      {current?.threadId ? (
        <a
          className="demo-link"
          href={`?thread=${encodeURIComponent(current.threadId)}`}
          target="_blank"
          rel="noreferrer"
        >
          Open this conversation in a second tab ↗
        </a>
      ) : null}
      {current?.threadId && current.token ? (
        <button
          type="button"
          className="demo-link"
          title="The link carries the conversation's access token: share it only with yourself."
          onClick={async () => {
            await navigator.clipboard.writeText(deviceLink(current.threadId!, current.token!));
            setCopied(true);
            setTimeout(() => setCopied(false), 2000);
          }}
        >
          {copied ? 'Link copied' : 'Copy a link for another device'}
        </button>
      ) : null}
    </nav>
  );
}
