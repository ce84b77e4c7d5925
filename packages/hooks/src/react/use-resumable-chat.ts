import { isTerminalStatus } from '@resumable/protocol';
import { useCallback, useMemo } from 'react';
import { useStore } from 'zustand';
import { useShallow } from 'zustand/react/shallow';
import type { ChatSession, ChatSessionOptions, ChatState } from '../core/chat.js';
import type { RunSessionState } from '../core/store.js';
import type { BrowserTools } from '../core/tool-declarations.js';
import { toolDeclarations } from '../core/tool-declarations.js';
import type {
  ChatController,
  InterruptControls,
  SendOptions,
  UploadOptions,
} from '../core/types.js';
import { useResumableClient } from './provider.js';
import { useInterrupts } from './use-interrupts.js';
import { useRetained } from './use-resumable-run.js';

export interface UseResumableChatOptions extends Partial<Omit<ChatSessionOptions, 'key'>> {
  /**
   * Where the conversation is persisted (outbox, active run).
   * @default threadId ?? 'chat'
   */
  key?: string;
  /**
   * Browser-side tools: declared in every prompt's `tools`; when the agent calls one (a
   * `client_tool` interrupt) it runs in the page, once, and its result is the answer.
   * @default undefined
   */
  tools?: BrowserTools;
}

/** What `useResumableChat` returns: the controller, plus whether the record has been read. */
export interface ResumableChatController
  extends Omit<ChatController, keyof InterruptControls>,
    InterruptControls {
  /**
   * False until the persisted records (the chat's and its run's) have been read: a UI
   * shows nothing yet rather than an empty conversation, so a reload does not flash one,
   * and the stored prompt and reply arrive in the same update.
   */
  hydrated: boolean;
  // Always present here (optional on `ChatController`, which other controllers implement).
  regenerate(messageId?: string): Promise<void>;
  edit(messageId: string, content: string): Promise<void>;
  switchBranch(messageId: string, index: number): Promise<void>;
}

/**
 * A conversation: history pages, the active run (resumed after reloads and drops), an
 * optimistic outbox that survives offline spells, and stop = server cancel.
 */
export function useResumableChat(options: UseResumableChatOptions = {}): ResumableChatController {
  const { key = options.threadId ?? 'chat', endpoint, tools, ...overrides } = options;
  const client = useResumableClient(endpoint);
  // biome-ignore lint/correctness/useExhaustiveDependencies: options are read when the key's session is made
  const chat = useMemo(() => client.chatSession(key, withOptions(overrides, tools)), [client, key]);
  useRetained(chat);
  const hitl = useInterrupts(chat, tools);
  const chatState = useStore(chat.store, useShallow(selectChat));
  const runState = useStore(chat.run.store, useShallow(selectRun));
  // The controller's send stays Promise<void>; the run id is `ChatSession.send`'s.
  const send = useCallback(
    async (text: string, options?: SendOptions) => {
      await chat.send(text, options);
    },
    [chat],
  );
  // Loaded on first use (dynamic imports inside): out of the first paint.
  const upload = useCallback(
    (file: Blob, options?: UploadOptions) =>
      import('../core/upload.js').then((m) => m.uploadToChat(chat, file, options)),
    [chat],
  );
  const branches = useMemo(() => branchCommands(chat), [chat]);
  const stop = useCallback(() => chat.stop(), [chat]);
  const retry = useCallback(() => chat.retry(), [chat]);
  const loadOlder = useCallback(() => chat.loadOlder(), [chat]);
  const reset = useCallback(() => chat.reset(), [chat]);
  return useMemo(
    () => ({
      threadId: chatState.threadId ?? runState.threadId,
      runId: runState.runId,
      messages: chatState.messages,
      status: runState.status,
      connection: runState.connection,
      error: chatState.error ?? runState.error,
      isStreaming:
        runState.runId !== null &&
        !runState.stopped &&
        runState.error === null &&
        !isTerminalStatus(runState.status),
      outbox: chatState.outbox,
      hasOlder: chatState.hasOlder,
      isLoadingOlder: chatState.isLoadingOlder,
      hydrated: chatState.hydrated,
      ...hitl,
      token: chatState.token,
      send,
      upload,
      ...branches,
      stop,
      retry,
      loadOlder,
      reset,
    }),
    [chatState, runState, hitl, send, stop, retry, loadOlder, reset, upload, branches],
  );
}

/** Browser tools are declared in every POST's `tools`, beside the app's own. */
function withOptions(
  overrides: Partial<ChatSessionOptions>,
  tools: BrowserTools | undefined,
): Partial<ChatSessionOptions> {
  if (!tools) return overrides;
  const own = (overrides.runInput?.tools as unknown[] | undefined) ?? [];
  return {
    ...overrides,
    runInput: { ...overrides.runInput, tools: [...own, ...toolDeclarations(tools)] },
  };
}

const selectChat = (s: ChatState) => ({
  threadId: s.threadId,
  messages: s.messages,
  error: s.error,
  outbox: s.outbox,
  hasOlder: s.hasOlder,
  isLoadingOlder: s.isLoadingOlder,
  hydrated: s.hydrated,
  token: s.token,
});

/** The controller's regenerate / edit / switchBranch (resolve once queued or shown). */
function branchCommands(chat: ChatSession) {
  return {
    regenerate: async (messageId?: string) => {
      await chat.regenerate(messageId);
    },
    edit: async (messageId: string, content: string) => {
      await chat.edit(messageId, content);
    },
    switchBranch: (messageId: string, index: number) => chat.switchBranch(messageId, index),
  };
}

const selectRun = (s: RunSessionState) => ({
  threadId: s.threadId,
  runId: s.runId,
  status: s.status,
  connection: s.connection,
  error: s.error,
  stopped: s.stopped,
});
