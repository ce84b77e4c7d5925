import { type AttachmentLimits, useAttachments } from '@resumable/hooks/attachments';
import { messageText, RUN_ERROR_CODES } from '@resumable/protocol';
import { type ComponentType, type KeyboardEvent, memo, useCallback, useMemo, useRef } from 'react';
import type { AttachmentLabels } from './attachment-labels.js';
import { ChatRoot } from './chat-root.js';
import { Composer, type ComposerProps } from './composer.js';
import { ConnectionStatus } from './connection-status.js';
import type { ChatController } from './controller-types.js';
import { InterruptAnnouncer } from './interrupts/announcer.js';
import { InterruptsContext, UnanchoredInterrupts } from './interrupts/context.js';
import { type ChatLabels, useLabels } from './labels.js';
import type { CodeRenderer, ImagePolicy } from './markdown.js';
import type { MessageProps } from './message.js';
import { branchActions } from './message-actions.js';
import { FileAccessContext } from './message-file-parts.js';
import { MessageList } from './message-list.js';
import { ReplyAnnouncer } from './reply-announcer.js';

/**
 * How `<ResumableChatView>` and `<ResumableChat>` look and behave: words, theme, rendering of
 * replies, and file limits. Every option has a default.
 */
export interface ResumableChatViewOptions {
  /**
   * Strings to replace (i18n): any `ChatLabels` or `AttachmentLabels` key; the rest keep
   * their English defaults (`DEFAULT_LABELS`, `DEFAULT_ATTACHMENT_LABELS`).
   */
  labels?: Partial<ChatLabels & AttachmentLabels>;
  /** Class names added to its root element (which always has `rc-root rc-chat`). */
  className?: string;
  /**
   * Force a theme; by default it follows `prefers-color-scheme`. Sets `data-theme` on the root.
   * @default undefined
   */
  theme?: 'light' | 'dark';
  /**
   * Which remote images in replies may load (`true`: every http(s) image).
   * @default false (remote images in replies are not loaded)
   */
  allowRemoteImages?: ImagePolicy;
  /**
   * Renders the body of each fenced code block instead of the built-in highlighter; pass a
   * stable function. @default undefined (the built-in highlighter)
   */
  renderCode?: CodeRenderer;
  /** Focus the composer's textarea on mount. @default false */
  autoFocus?: boolean;
  /** Replaces the default message renderer (see `<MessageList messageComponent>`). */
  messageComponent?: ComponentType<MessageProps>;
  /**
   * How long the connection must stay unhealthy before the status line shows, in ms.
   * @default 1000
   */
  graceMs?: number;
  /**
   * Limits checked before a file is uploaded. Files can be attached when the controller
   * has `upload` (`useResumableChat` does); `false` hides the attach button.
   * @default DEFAULT_ATTACHMENT_LIMITS (10 MiB a file, 25 MiB a prompt, 10 files)
   */
  attachments?: AttachmentLimits | false;
  /**
   * The origin of the API serving the thread's files when it is not the page's (e.g.
   * `https://api.example.com`); `<ResumableChat>` takes it from an absolute `endpoint`.
   * @default the page's origin
   */
  fileOrigin?: string;
}

/** Props of {@link ResumableChatView}: a controller to draw, and the view's options. */
export interface ResumableChatViewProps extends ResumableChatViewOptions {
  /**
   * What `useResumableChat` returns. `hydrated: false` (the persisted transcript is still
   * being read) holds back the empty state, so a reload never flashes it.
   */
  controller: ChatController & { hydrated?: boolean };
}

/** `<ResumableChat>` without the hook: the parts wired to a `ChatController` you provide. */
export function ResumableChatView({
  controller,
  labels: labelsProp,
  className,
  theme,
  allowRemoteImages = false,
  renderCode,
  autoFocus = false,
  messageComponent,
  graceMs = 1000,
  attachments: limits,
  fileOrigin,
}: ResumableChatViewProps) {
  const labels = useLabels(labelsProp);
  const c = controller;
  const hitl = useMemo(
    () => ({
      interrupts: c.interrupts,
      resolve: c.resolve,
      cancel: c.cancel,
      rerunTool: c.rerunTool,
      labels,
    }),
    [c.interrupts, c.resolve, c.cancel, c.rerunTool, labels],
  );
  const messageIds = useMemo(() => new Set(c.messages.map((m) => m.id)), [c.messages]);
  // Unanswered here: a prompt sent now cancels them (protocol.md, "a new prompt cancels").
  const openInterrupts =
    c.interrupts?.filter((i) => i.status === 'open' && i.pending === null).length ?? 0;
  const files = useAttachments(c, limits === false ? undefined : limits);
  const token = c.token ?? null;
  const access = useMemo(() => ({ token, origin: fileOrigin }), [token, fileOrigin]);
  // The composer and the status line are given the same callbacks on every render (they
  // call the latest controller), so a streamed answer's renders — one a frame — skip them.
  const latest = useRef(c);
  latest.current = c;
  const stop = useCallback(() => latest.current.stop().catch(reported), []);
  const send = useCallback<ComposerProps['onSend']>(
    (text, attached) =>
      (attached
        ? latest.current.send(text, { attachments: attached })
        : latest.current.send(text)
      ).catch(reported),
    [],
  );
  const onKeyDown = (e: KeyboardEvent) => {
    // Esc stops the answer, as in ChatGPT; an open <details> or menu keeps its own Esc.
    if (e.key !== 'Escape' || !c.isStreaming || e.defaultPrevented) return;
    e.preventDefault();
    void stop();
  };
  return (
    <FileAccessContext.Provider value={access}>
      <ChatRoot className={className} theme={theme} onKeyDown={onKeyDown}>
        <StableConnectionStatus
          connection={c.connection}
          status={c.status}
          error={c.error}
          unsent={hasUnsent(c)}
          onRetry={retryAction(c)}
          graceMs={graceMs}
          labels={labels}
        />
        <InterruptsContext.Provider value={hitl}>
          <MessageList
            messages={c.messages}
            isStreaming={c.isStreaming}
            hasOlder={c.hasOlder}
            isLoadingOlder={c.isLoadingOlder}
            isRestoring={c.hydrated === false}
            onLoadOlder={() => {
              c.loadOlder().catch(reported);
            }}
            allowRemoteImages={allowRemoteImages}
            {...(renderCode ? { renderCode } : {})}
            labels={labels}
            {...(messageComponent ? { messageComponent } : {})}
            {...branchActions(c)}
          />
          <UnanchoredInterrupts messageIds={messageIds} />
        </InterruptsContext.Provider>
        <StableComposer
          onSend={send}
          attachments={files.enabled && limits !== false ? files : undefined}
          onStop={stop}
          isStreaming={c.isStreaming}
          offline={c.connection.phase === 'offline'}
          openInterrupts={openInterrupts}
          autoFocus={autoFocus}
          labels={labels}
        />
        <ReplyAnnouncer isStreaming={c.isStreaming} status={c.status} labels={labels} />
        <InterruptAnnouncer interrupts={c.interrupts} labels={labels} />
      </ChatRoot>
    </FileAccessContext.Provider>
  );
}

const StableComposer = memo(Composer);
const StableConnectionStatus = memo(ConnectionStatus);

/** The controller already shows its failures (`error`, `connection.lastError`) in the UI. */
function reported(): void {}

/**
 * Prompts wait in the outbox although the browser is online and nothing is going out or
 * streaming: the server did not answer the last try.
 */
function hasUnsent(c: ChatController): boolean {
  if (c.isStreaming || c.connection.phase === 'offline') return false;
  if (!c.outbox.some((item) => !item.error)) return false;
  return !c.messages.some((m) => m.pending === 'sending');
}

/**
 * Codes that end a run for good: reconnecting cannot help, asking again can. Every run
 * outcome but `store_unavailable`, which is also the store's 503 that reconnecting cures.
 */
const RUN_ENDED = new Set<string>(RUN_ERROR_CODES.filter((c) => c !== 'store_unavailable'));

/**
 * What Retry does, so that it always does something visible: after a run ended in error it
 * asks the last question again (a new run); otherwise it reconnects now and re-sends the
 * outbox (`controller.retry()`).
 */
function retryAction(c: ChatController): () => void {
  if (c.error?.code && RUN_ENDED.has(c.error.code)) {
    const prompt = c.messages.findLast((m) => m.role === 'user');
    if (prompt) return () => void c.send(messageText(prompt)).catch(reported);
  }
  return c.retry;
}
