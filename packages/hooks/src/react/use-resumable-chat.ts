import { isTerminalStatus } from '@resumable/protocol';
import { useCallback, useMemo } from 'react';
import type { ChatSession } from '../core/chat/chat-session.js';
import type { ChatSessionOptions, SendOptions } from '../core/chat/options.js';
import type { ClientHandle, EngineState } from '../core/client/client-handle.js';
import type { ChatController, InterruptControls } from '../core/client/controller.js';
import type { StoredChat } from '../core/client/first-paint.js';
import { storedChatOf } from '../core/client/first-paint.js';
import type { ChatState } from '../core/conversation/state.js';
import type { BrowserTools } from '../core/interrupts/tool-declarations.js';
import { toolDeclarations } from '../core/interrupts/tool-declarations.js';
import type { UploadOptions } from '../core/net/uploads.js';
import { initialConnection } from '../core/run/connection.js';
import type { RunSessionState } from '../core/run/session-store.js';
import { useClientHandle, useEngine, useRetained } from './provider.js';
import { useInterrupts } from './use-interrupts.js';
import { useSlice, useStoredRecords } from './use-stored.js';

/**
 * What `useResumableChat` takes: any chat option (read when the key's session is made; a
 * change needs a new key), the key it is persisted under, and browser tools.
 */
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
  /**
   * A new answer to the prompt of `messageId` (default: the last answer) beside the old one;
   * it becomes the branch shown. Queued like `send` while offline or while a reply streams.
   */
  regenerate(messageId?: string): Promise<void>;
  /** The prompt `messageId` asked again as `content`, on a new branch beside it. */
  edit(messageId: string, content: string): Promise<void>;
  /** Shows sibling `index` (0-based) of `messageId` and its newest continuation. */
  switchBranch(messageId: string, index: number): Promise<void>;
}

type ChatView = Omit<ResumableChatController, keyof ChatActions | keyof InterruptControls>;
type WithChat = <T>(action: (chat: ChatSession) => T | Promise<T>) => Promise<T>;

/**
 * A conversation: history pages, the active run (resumed after reloads and drops), an
 * optimistic outbox that survives offline spells, and stop = server cancel.
 *
 * The first render starts two things at once: the read of the persisted records and the
 * engine's `import()` (`ChatSession` and all it needs). Until the engine has loaded and
 * read the same records, the stored transcript is composed here (`core/first-paint.ts`),
 * so a reload paints it without waiting for the engine; actions called meanwhile wait for
 * it and are carried out once.
 */
export function useResumableChat(options: UseResumableChatOptions = {}): ResumableChatController {
  const { key = options.threadId ?? 'chat', endpoint, tools, ...overrides } = options;
  const handle = useClientHandle(endpoint);
  const engine = useEngine(handle);
  const stored = useStoredRecords(handle, key);
  // Options are read when the key's session is made; later changes need a new key.
  // biome-ignore lint/correctness/useExhaustiveDependencies: see above
  const settings = useMemo(() => withOptions(overrides, tools), [handle, key]);
  // biome-ignore lint/correctness/useExhaustiveDependencies: a client once the engine loaded
  const client = useMemo(() => handle.client(), [handle, engine.loaded]);
  const chat = useMemo(
    () => client && handle.chat(client, key, settings),
    [client, handle, key, settings],
  );
  useRetained(chat);
  const withChat: WithChat = useCallback(
    (action) => handle.withChat(key, settings, action),
    [handle, key, settings],
  );
  const hitl = useInterrupts(chat, tools, withChat);
  const chatState = useSlice(chat?.store ?? null, selectChat);
  const runState = useSlice(chat?.run.store ?? null, selectRun);
  // biome-ignore lint/correctness/useExhaustiveDependencies: the thread and token asked for with the key
  const shell = useMemo(
    () => stored && storedChatOf(stored, { threadId: overrides.threadId, token: overrides.token }),
    [stored],
  );
  const actions = useMemo(() => chatActions(handle, withChat), [handle, withChat]);
  const view = useMemo(
    () =>
      chatState?.hydrated && runState
        ? liveView(chatState, runState)
        : storedView(shell, engine, handle.persistence()),
    [chatState, runState, shell, engine, handle],
  );
  return useMemo(() => ({ ...view, ...hitl, ...actions }), [view, hitl, actions]);
}

/** The engine's state, once it has read the records: the single truth from then on. */
function liveView(chat: ChatSlice, run: RunSlice): ChatView {
  return {
    threadId: chat.threadId ?? run.threadId,
    runId: run.runId,
    messages: chat.messages,
    status: run.status,
    connection: run.connection,
    error: chat.error ?? run.error,
    isStreaming:
      run.runId !== null && !run.stopped && run.error === null && !isTerminalStatus(run.status),
    outbox: chat.outbox,
    hasOlder: chat.hasOlder,
    isLoadingOlder: chat.isLoadingOlder,
    hydrated: true,
    token: chat.token,
  };
}

/** Before the engine: the stored transcript (or nothing, `hydrated: false`, until it is read). */
function storedView(
  shell: StoredChat | null,
  engine: EngineState,
  persistence: 'indexeddb' | 'memory',
): ChatView {
  return {
    threadId: shell?.chat.threadId ?? null,
    runId: shell?.run.runId ?? null,
    messages: shell?.messages ?? [],
    status: shell?.run.status ?? 'idle',
    connection: initialConnection(persistence),
    error: engine.error ?? shell?.run.error ?? null,
    isStreaming: shell?.streaming ?? false,
    outbox: shell?.chat.outbox ?? [],
    hasOlder: false,
    isLoadingOlder: false,
    hydrated: shell !== null,
    token: shell?.chat.token ?? null,
  };
}

type ChatActions = ReturnType<typeof chatActions>;

/** The controller's commands: each on the engine's chat, waiting for it when it is not there yet. */
function chatActions(handle: ClientHandle, withChat: WithChat) {
  return {
    send: async (text: string, options?: SendOptions) => {
      await withChat((chat) => chat.send(text, options));
    },
    // The upload code loads on first use (dynamic import): out of the first paint.
    upload: (file: Blob, options?: UploadOptions) =>
      withChat((chat) =>
        import('../core/uploads/upload-to-chat.js').then((m) =>
          m.uploadToChat(chat, file, options),
        ),
      ),
    regenerate: async (messageId?: string) => {
      await withChat((chat) => chat.regenerate(messageId));
    },
    edit: async (messageId: string, content: string) => {
      await withChat((chat) => chat.edit(messageId, content));
    },
    switchBranch: (messageId: string, index: number) =>
      withChat((chat) => chat.switchBranch(messageId, index)),
    stop: () => withChat((chat) => chat.stop()),
    // After a failed engine load, Retry loads it again.
    retry: () => {
      if (handle.getState().error) handle.retry();
      else void withChat((chat) => chat.retry()).catch(() => {});
    },
    loadOlder: () => withChat((chat) => chat.loadOlder()),
    reset: () => {
      void withChat((chat) => chat.reset()).catch(() => {});
    },
  };
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

type ChatSlice = ReturnType<typeof selectChat>;
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

type RunSlice = ReturnType<typeof selectRun>;
const selectRun = (s: RunSessionState) => ({
  threadId: s.threadId,
  runId: s.runId,
  status: s.status,
  connection: s.connection,
  error: s.error,
  stopped: s.stopped,
});
