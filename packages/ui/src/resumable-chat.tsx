import { type UseResumableChatOptions, useResumableChat } from '@resumable/hooks';
import { ResumableChatView, type ResumableChatViewOptions } from './resumable-chat-view.js';

/**
 * Props of {@link ResumableChat}: where the server is and which conversation, options for
 * `useResumableChat`, and the view's options.
 */
export interface ResumableChatProps extends ResumableChatViewOptions {
  /**
   * Base URL of the Resumable server routes, e.g. `/api`.
   * @default the enclosing <ResumableProvider>'s
   */
  endpoint?: string;
  /**
   * Continue this conversation.
   * @default a new thread on the first send
   */
  threadId?: string;
  /** Further `useResumableChat` options (persistence key, …). @default {} */
  chatOptions?: Omit<UseResumableChatOptions, 'endpoint' | 'threadId'>;
}

/**
 * One line to a working, resumable chat: `<ResumableChat endpoint="/api" />`. It is
 * `useResumableChat` wired into `<ResumableChatView>`, itself made only of the exported parts.
 */
export function ResumableChat({ endpoint, threadId, chatOptions, ...view }: ResumableChatProps) {
  const controller = useResumableChat({
    ...chatOptions,
    ...(endpoint === undefined ? {} : { endpoint }),
    ...(threadId === undefined ? {} : { threadId }),
  });
  // An API on another origin serves the files there too.
  const origin = endpoint && /^https?:\/\//i.test(endpoint) ? new URL(endpoint).origin : undefined;
  return (
    <ResumableChatView
      controller={controller}
      {...(origin && view.fileOrigin === undefined ? { fileOrigin: origin } : {})}
      {...view}
    />
  );
}
