// The page `pnpm bench ui` streams into: the drop-in `<ResumableChat>` against the bench's
// server, its assistant Markdown drawn by the renderer `?renderer=` names. Everything but
// the Markdown (the hooks, the transport, the transcript, the composer) is the same for every
// renderer, so the figures differ by the renderer alone.
import { messageText } from '@resumable/protocol';
import { Message, type MessageProps, ResumableChat } from '@resumable/ui';
import '@resumable/ui/styles.css';
import { memo, type ReactNode } from 'react';
import { createRoot } from 'react-dom/client';
import ReactMarkdown from 'react-markdown';
import remarkGfm from 'remark-gfm';
import { Streamdown } from 'streamdown';

const REMARK_PLUGINS = [remarkGfm];

/** How each peer draws the assistant's Markdown (the kit's own renderer is `resumable`). */
const PEERS: Record<string, (text: string, streaming: boolean) => ReactNode> = {
  // streamdown as AI Elements uses it: the whole text each render, streaming flagged.
  streamdown: (text, streaming) => <Streamdown isAnimating={streaming}>{text}</Streamdown>,
  // What most apps do: react-markdown with GFM, the whole text re-rendered on every token.
  'react-markdown': (text) => <ReactMarkdown remarkPlugins={REMARK_PLUGINS}>{text}</ReactMarkdown>,
  // No Markdown at all: the text as it came. What everything but the renderer costs.
  plain: (text) => <div style={{ whiteSpace: 'pre-wrap' }}>{text}</div>,
};

const renderer = new URLSearchParams(location.search).get('renderer') ?? 'resumable';
const peer = PEERS[renderer];
if (!peer && renderer !== 'resumable') throw new Error(`unknown renderer ${renderer}`);

/** The assistant's Markdown by the peer; every other row as the kit draws it. */
const PeerMessage = memo(
  function PeerMessage(props: MessageProps) {
    const { message } = props;
    const text = messageText(message);
    if (!peer || message.role !== 'assistant' || text === '') return <Message {...props} />;
    return (
      <div
        className="rc-message rc-message--assistant"
        data-message-id={message.id}
        data-role="assistant"
        data-status={message.streaming ? 'streaming' : 'complete'}
      >
        <div className="rc-message__content" data-part="text" data-text={text}>
          {peer(text, message.streaming === true)}
        </div>
      </div>
    );
  },
  (a, b) => a.message === b.message,
);

createRoot(document.getElementById('root')!).render(
  <ResumableChat endpoint="/api" {...(peer ? { messageComponent: PeerMessage } : {})} />,
);
