/**
 * The public surface, pinned (issue #25): the names each entry exports at run time — a new
 * one is a deliberate change, here and in `api/*.api.md` — and, for the root entry, that each
 * type it names is the one the hooks take or return (checked by `pnpm typecheck`), and that
 * its two storages keep what they are given.
 */
import { describe, expect, expectTypeOf, it } from 'vitest';
import type {
  Attachment,
  BackoffOptions,
  BranchInfo,
  BrowserTool,
  BrowserTools,
  ChatController,
  ChatInterrupt,
  ChatMessage,
  ChatSessionOptions,
  ClientOptions,
  ConnectionInfo,
  ConnectionPhase,
  ConversationOptions,
  HeadersOption,
  IndexedDbStorageOptions,
  InterruptControls,
  OutboxItem,
  RecordStorage,
  ResumableChatController,
  ResumableEnvironment,
  ResumableProviderProps,
  ResumableRun,
  RunSessionOptions,
  SendOptions,
  Signal,
  StartedRun,
  StartRunInput,
  TabChannel,
  TabLocks,
  UploadOptions,
  UseResumableChatOptions,
  UseResumableRunOptions,
} from '../src/index.js';
import * as root from '../src/index.js';
import * as interrupts from '../src/interrupts.js';
import * as threads from '../src/threads/index.js';
import * as turns from '../src/turns/index.js';
import * as upload from '../src/upload/index.js';

const names = async (entry: string) => Object.keys(await import(`../src/${entry}`)).sort();

describe('@resumable/hooks: what a React app needs', () => {
  it('exports the provider, the hooks and the two storages, and nothing of the engine', () => {
    expect(Object.keys(root).sort()).toEqual([
      'ResumableProvider',
      'createIndexedDbStorage',
      'createMemoryStorage',
      'useResumableChat',
      'useResumableClient',
      'useResumableRun',
    ]);
  });

  it('names the types the hooks take and return', () => {
    expectTypeOf(root.useResumableChat)
      .parameter(0)
      .toEqualTypeOf<UseResumableChatOptions | undefined>();
    expectTypeOf(root.useResumableChat).returns.toEqualTypeOf<ResumableChatController>();
    expectTypeOf<ResumableChatController>().toMatchTypeOf<ChatController>();
    expectTypeOf<ResumableChatController>().toMatchTypeOf<InterruptControls>();
    expectTypeOf<ChatController['messages'][number]>().toEqualTypeOf<ChatMessage>();
    expectTypeOf<NonNullable<ChatMessage['branch']>>().toEqualTypeOf<BranchInfo>();
    expectTypeOf<ChatController['outbox'][number]>().toEqualTypeOf<OutboxItem>();
    expectTypeOf<ChatController['connection']>().toEqualTypeOf<ConnectionInfo>();
    expectTypeOf<ConnectionInfo['phase']>().toEqualTypeOf<ConnectionPhase>();
    expectTypeOf<InterruptControls['interrupts'][number]>().toEqualTypeOf<ChatInterrupt>();
    expectTypeOf<ChatController['send']>().parameter(1).toEqualTypeOf<SendOptions | undefined>();
    expectTypeOf<NonNullable<SendOptions['attachments']>[number]>().toEqualTypeOf<Attachment>();
    expectTypeOf<NonNullable<ChatController['upload']>>()
      .parameter(1)
      .toEqualTypeOf<UploadOptions | undefined>();
    expectTypeOf<UseResumableChatOptions['tools']>().toEqualTypeOf<BrowserTools | undefined>();
    expectTypeOf<BrowserTools[string]>().toEqualTypeOf<BrowserTool>();
    expectTypeOf(root.ResumableProvider).parameter(0).toEqualTypeOf<ResumableProviderProps>();
    expectTypeOf<ResumableProviderProps['storage']>().toEqualTypeOf<RecordStorage | undefined>();
    expectTypeOf<ResumableProviderProps['headers']>().toEqualTypeOf<HeadersOption | undefined>();
    expectTypeOf(root.useResumableRun).parameter(0).toEqualTypeOf<UseResumableRunOptions>();
    expectTypeOf(root.useResumableRun).returns.toEqualTypeOf<ResumableRun>();
    expectTypeOf<ResumableRun['start']>().parameter(0).toEqualTypeOf<StartRunInput | undefined>();
    expectTypeOf<ResumableRun['start']>().returns.toEqualTypeOf<Promise<StartedRun>>();
  });

  it('names the options the provider and the hooks take, down to the environment', () => {
    expectTypeOf<ResumableProviderProps>().toMatchTypeOf<Partial<ClientOptions>>();
    expectTypeOf<ClientOptions>().toEqualTypeOf<Omit<RunSessionOptions, 'key'>>();
    expectTypeOf<UseResumableChatOptions>().toMatchTypeOf<
      Partial<Omit<ChatSessionOptions, 'key'>>
    >();
    expectTypeOf<ChatSessionOptions>().toMatchTypeOf<ConversationOptions>();
    expectTypeOf<ConversationOptions>().toMatchTypeOf<RunSessionOptions>();
    expectTypeOf<UseResumableRunOptions>().toMatchTypeOf<Partial<RunSessionOptions>>();
    expectTypeOf(root.createIndexedDbStorage)
      .parameter(0)
      .toEqualTypeOf<IndexedDbStorageOptions | undefined>();
    expectTypeOf<RunSessionOptions['backoff']>().toEqualTypeOf<BackoffOptions | undefined>();
    expectTypeOf<RunSessionOptions['env']>().toEqualTypeOf<
      Partial<ResumableEnvironment> | undefined
    >();
    expectTypeOf<ResumableEnvironment['online']>().toEqualTypeOf<Signal>();
    expectTypeOf<ResumableEnvironment['channel']>().returns.toEqualTypeOf<TabChannel | null>();
    expectTypeOf<ResumableEnvironment['locks']>().toEqualTypeOf<TabLocks | null>();
  });

  it('its storages keep what they are given: memory, and IndexedDB (its own database)', async () => {
    const memory = root.createMemoryStorage();
    const indexedDb = root.createIndexedDbStorage({ dbName: 'public-api' });
    expect([memory.kind, indexedDb.kind]).toEqual(['memory', 'indexeddb']);
    for (const storage of [memory, indexedDb]) {
      await storage.update('k', () => ({ n: 1 }));
      await storage.update('k', (old) => ({ n: (old as { n: number }).n + 1 }));
      expect(await storage.get('k')).toEqual({ n: 2 });
      await storage.delete('k');
      expect(await storage.get('k')).toBeUndefined();
    }
  });
});

describe('the other entries', () => {
  it('@resumable/hooks/core: the client, its sessions, the environment and the storages', async () => {
    expect(await names('core/index.js')).toEqual([
      'ChatSession',
      'ResumableClient',
      'RunSession',
      'browserOnlineSignal',
      'browserVisibleSignal',
      'chatTurns',
      'createEnvironment',
      'createIndexedDbStorage',
      'createManualSignal',
      'createMemoryStorage',
      'defaultClient',
      'defaultStorage',
      'disposeDefaultClients',
      'hasIndexedDb',
      'toolCallStatus',
      'withFallback',
    ]);
  });

  it('the lower-level calls take types their entries name: the server as EndpointOptions', () => {
    expectTypeOf(upload.uploadFile).parameter(0).toEqualTypeOf<upload.EndpointOptions>();
    expectTypeOf(upload.createThread).parameter(0).toEqualTypeOf<upload.EndpointOptions>();
    expectTypeOf(upload.uploadToChat).parameter(0).toEqualTypeOf<upload.ChatSession>();
    expectTypeOf(interrupts.interruptSessionOf)
      .parameter(0)
      .toEqualTypeOf<interrupts.ChatSession>();
    expectTypeOf(interrupts.deriveInterrupts).parameter(0).toEqualTypeOf<interrupts.DeriveInput>();
    expectTypeOf(upload.uploadFile).returns.toEqualTypeOf<Promise<upload.Attachment>>();
    expectTypeOf(threads.createThread).parameter(0).toEqualTypeOf<threads.EndpointOptions>();
    expectTypeOf(threads.renameThread).parameter(0).toEqualTypeOf<threads.EndpointOptions>();
    expectTypeOf(threads.deleteThread).parameter(0).toEqualTypeOf<threads.EndpointOptions>();
    expectTypeOf<threads.LocalThreadSourceOptions>().toMatchTypeOf<threads.EndpointOptions>();
    expectTypeOf<NonNullable<upload.EndpointOptions['headers']>>().toEqualTypeOf<HeadersOption>();
  });

  it('the turn view takes what the chat hook returns and names every part it gives', () => {
    expectTypeOf(turns.useChatTurns).parameter(0).toEqualTypeOf<turns.ChatTurnsInput>();
    expectTypeOf<ResumableChatController>().toMatchTypeOf<turns.ChatTurnsInput>();
    expectTypeOf(turns.useChatTurns).returns.toEqualTypeOf<readonly turns.ChatTurn[]>();
    expectTypeOf<turns.ChatTurn['parts'][number]>().toEqualTypeOf<turns.TurnPart>();
    expectTypeOf<turns.TurnPart>().toEqualTypeOf<
      turns.TextPart | turns.ReasoningPart | turns.FilePart | turns.ToolPart | turns.InterruptPart
    >();
    expectTypeOf<turns.ToolPart['status']>().toEqualTypeOf<turns.ToolCallStatus>();
    expectTypeOf<turns.ToolPart['result']>().toEqualTypeOf<turns.ToolResult | null>();
    expectTypeOf<turns.ToolPart['interrupt']>().toEqualTypeOf<ChatInterrupt | null>();
    expectTypeOf<turns.ChatTurn['messages'][number]>().toEqualTypeOf<ChatMessage>();
    expectTypeOf<turns.ChatTurn['branch']>().toEqualTypeOf<BranchInfo | null>();
  });

  it('the feature entries', async () => {
    expect(await names('interrupts.js')).toEqual([
      'BrowserToolRunner',
      'InterruptSession',
      'browserToolRunnerOf',
      'deriveInterrupts',
      'interruptSessionOf',
      'interruptsOf',
      'openBatch',
      'toolDeclarations',
    ]);
    expect(await names('threads/index.js')).toEqual([
      'DEFAULT_MAX_THREADS',
      'THREAD_INDEX_KEY',
      'ThreadIndex',
      'createThread',
      'deleteThread',
      'localThreadSource',
      'renameThread',
      'sortThreads',
      'titleFromPrompt',
      'useThreads',
      'useTrackThread',
    ]);
    expect(await names('turns/index.js')).toEqual([
      'chatTurns',
      'messageFiles',
      'toolCallStatus',
      'useChatTurns',
    ]);
    expect(await names('attachments/index.js')).toEqual([
      'AttachmentDraft',
      'DEFAULT_ATTACHMENT_LIMITS',
      'draftStatus',
      'formatBytes',
      'transition',
      'useAttachments',
    ]);
    expect(await names('upload/index.js')).toEqual([
      'attachmentOf',
      'createThread',
      'defaultUploadTransport',
      'fetchTransport',
      'uploadFile',
      'uploadToChat',
      'xhrTransport',
    ]);
    expect(await names('ai-sdk/index.js')).toEqual([
      'ResumableChatTransport',
      'chunksBetween',
      'chunksFor',
      'conversationOf',
      'createResumableChatTransport',
      'mirrorRun',
      'partsOf',
      'segmentsOf',
    ]);
  });
});
