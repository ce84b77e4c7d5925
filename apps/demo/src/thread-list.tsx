import type { ThreadEntry, ThreadsController } from '@resumable/hooks/threads';
import { ThreadList } from '@resumable/ui/thread-list';
import { useState } from 'react';
import { deviceLink } from './threads.js';

/**
 * The kit's `<ThreadList>` (new / switch / rename / delete) plus the demo's links to open the
 * conversation elsewhere. On a narrow screen it is a drawer (`open`), closed again once a
 * conversation is picked.
 */
export function ThreadsPanel({
  threads,
  current,
  onSelect,
  onRemoved,
  open,
}: {
  threads: ThreadsController;
  current: ThreadEntry | undefined;
  onSelect: (id: string) => void;
  onRemoved: (id: string) => void;
  open: boolean;
}) {
  const [copied, setCopied] = useState(false);
  return (
    <aside
      id="demo-threads"
      className="demo-threads"
      aria-label="Chats"
      data-open={open || undefined}
    >
      <ThreadList
        threads={threads}
        currentId={current?.id ?? null}
        onSelect={onSelect}
        onRemoved={onRemoved}
      />
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
      <a className="demo-link" href="ai-sdk.html">
        The same server with the AI SDK’s useChat →
      </a>
    </aside>
  );
}
