import type { ComponentType } from 'react';
import { ChatRoot } from './chat-root.js';
import { Composer } from './composer.js';
import { ConnectionStatus } from './connection-status.js';
import type { ChatController } from './controller-types.js';
import { type ChatLabels, useLabels } from './labels.js';
import type { CodeRenderer, ImagePolicy } from './markdown.js';
import type { MessageProps } from './message.js';
import { MessageList } from './message-list.js';
import { ReplyAnnouncer } from './reply-announcer.js';

export interface ResumableChatViewOptions {
  /** Strings to replace (i18n); the rest keep their English defaults. */
  labels?: Partial<ChatLabels>;
  className?: string;
  /**
   * Force a theme; by default it follows `prefers-color-scheme`. Sets `data-theme` on the root.
   * @default undefined
   */
  theme?: 'light' | 'dark';
  /** @default false (remote images in replies are not loaded) */
  allowRemoteImages?: ImagePolicy;
  /** Renders code block bodies (syntax highlighting); pass a stable function. @default undefined */
  renderCode?: CodeRenderer;
  /** @default false */
  autoFocus?: boolean;
  /** Replaces the default message renderer (see `<MessageList messageComponent>`). */
  messageComponent?: ComponentType<MessageProps>;
}

export interface ResumableChatViewProps extends ResumableChatViewOptions {
  /** What `useResumableChat` returns. */
  controller: ChatController;
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
}: ResumableChatViewProps) {
  const labels = useLabels(labelsProp);
  const c = controller;
  return (
    <ChatRoot className={className} theme={theme}>
      <ConnectionStatus
        connection={c.connection}
        status={c.status}
        error={c.error}
        onRetry={c.retry}
        labels={labels}
      />
      <MessageList
        messages={c.messages}
        isStreaming={c.isStreaming}
        hasOlder={c.hasOlder}
        isLoadingOlder={c.isLoadingOlder}
        onLoadOlder={() => {
          c.loadOlder().catch(reported);
        }}
        allowRemoteImages={allowRemoteImages}
        {...(renderCode ? { renderCode } : {})}
        labels={labels}
        {...(messageComponent ? { messageComponent } : {})}
      />
      <Composer
        onSend={(text) => c.send(text).catch(reported)}
        onStop={() => c.stop().catch(reported)}
        isStreaming={c.isStreaming}
        offline={c.connection.phase === 'offline'}
        autoFocus={autoFocus}
        labels={labels}
      />
      <ReplyAnnouncer isStreaming={c.isStreaming} status={c.status} labels={labels} />
    </ChatRoot>
  );
}

/** The controller already shows its failures (`error`, `connection.lastError`) in the UI. */
function reported(): void {}
