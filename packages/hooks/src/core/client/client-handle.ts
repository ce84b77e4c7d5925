import { ResumableError } from '@resumable/protocol';
import { DEFAULT_ENGINE_TIMEOUT_MS } from '../base/defaults.js';
import { withTimeout } from '../base/timeout.js';
import { whileHeld } from '../base/when.js';
import type { StoredRecords } from '../chat/chat-record.js';
import { readStoredRecords } from '../chat/chat-record.js';
import type { ChatSession } from '../chat/chat-session.js';
import type { ChatSessionOptions } from '../chat/options.js';
import type { RecordStorage } from '../records/storage.js';
import { storageFor } from '../records/storage.js';
import type { RunSession, RunSessionOptions } from '../run/run-session.js';
import type { ClientOptions, ResumableClient } from './resumable-client.js';

/** The engine chunk (`src/engine.ts`): the sessions and the client that holds them. */
export type EngineModule = typeof import('./engine.js');
/** Loads the engine chunk (a test may delay or fail it). */
export type EngineLoader = () => Promise<EngineModule>;

const loadEngine: EngineLoader = () => import('./engine.js');

/** Whether the engine is there, and why its load failed (the error the UI shows). */
export interface EngineState {
  loaded: boolean;
  error: ResumableError | null;
}

/**
 * A `ResumableClient` that is not loaded yet: the provider's options, the engine's
 * `import()` (started on the first hook's first render, beside the records' read, with a
 * timeout and a retry), the records the first paint read per key, and every action called
 * before the engine arrived, carried out once it has (`withChat`). Framework-free.
 */
export class ClientHandle {
  private engine: EngineModule | null = null;
  private loading: Promise<ResumableClient> | null = null;
  private state: EngineState;
  private readonly listeners = new Set<() => void>();
  /** Reads started for the first paint, until the engine's session for the key takes them. */
  private readonly reads = new Map<string, Promise<StoredRecords>>();
  private storage: RecordStorage | null = null;

  constructor(
    readonly options: ClientOptions,
    private readonly make: (engine: EngineModule) => ResumableClient,
    private readonly loader: EngineLoader = loadEngine,
    readonly timeoutMs = DEFAULT_ENGINE_TIMEOUT_MS,
    private readonly given: ResumableClient | null = null,
  ) {
    this.state = { loaded: given !== null, error: null };
  }

  /** A client made by the app: nothing to load. */
  static of(client: ResumableClient): ClientHandle {
    return new ClientHandle(client.options, () => client, loadEngine, undefined, client);
  }

  getState(): EngineState {
    return this.state;
  }

  /** The engine's client, or null until the engine has loaded. */
  client(): ResumableClient | null {
    return this.given ?? (this.engine && this.make(this.engine));
  }

  subscribe(listener: () => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  /** The engine's client: at once when loaded, else after loading it (a typed error if it fails). */
  load(): Promise<ResumableClient> {
    const client = this.client();
    if (client) return Promise.resolve(client);
    this.loading ??= withTimeout(this.loader(), this.timeoutMs, 'loading the chat engine').then(
      (engine) => {
        this.engine = engine;
        this.set({ loaded: true, error: null });
        return this.make(engine);
      },
      (cause) => {
        this.loading = null; // a retry loads again
        const error =
          cause instanceof ResumableError
            ? cause
            : new ResumableError('network', `the chat engine did not load: ${String(cause)}`, {
                cause,
              });
        this.set({ loaded: false, error });
        throw error;
      },
    );
    return this.loading;
  }

  /** Loads the engine again after a failure (the UI's Retry). */
  retry(): void {
    if (this.state.error) void this.load().catch(() => {});
  }

  /** The records of `key`, read once for the first paint (the engine's session takes them). */
  records(key: string): Promise<StoredRecords> {
    let read = this.reads.get(key);
    if (!read) {
      // No warning of its own: each session handed this storage warns its fallback once.
      this.storage ??= storageFor(this.options);
      read = readStoredRecords(this.storage, key);
      this.reads.set(key, read);
    }
    return read;
  }

  /** The engine's chat for `key`, handed the first paint's read when there was one. */
  chat(client: ResumableClient, key: string, overrides: Partial<ChatSessionOptions>): ChatSession {
    const chat = client.chatSession(key, this.withStorage(overrides));
    const read = this.take(key);
    if (read) chat.preload(read);
    return chat;
  }

  /** The engine's run session for `key`, hydrated from the first paint's read when there was one. */
  run(client: ResumableClient, key: string, overrides: Partial<RunSessionOptions>): RunSession {
    const session = client.runSession(key, this.withStorage(overrides));
    const read = this.take(key);
    if (read) void session.hydrate(read.then((r) => r.run));
    return session;
  }

  /**
   * Runs `action` on the key's chat once the engine is loaded and the chat's records read:
   * at once when they are (the optimistic prompt shows in the same task), else after
   * waiting for both (bounded by `timeoutMs` each). Never dropped; a failed load rejects.
   */
  withChat<T>(
    key: string,
    overrides: Partial<ChatSessionOptions>,
    action: (chat: ChatSession) => T | Promise<T>,
  ): Promise<T> {
    return this.ready((client) => this.chat(client, key, overrides), action);
  }

  /** `withChat` for a run session. */
  withRun<T>(
    key: string,
    overrides: Partial<RunSessionOptions>,
    action: (run: RunSession) => T | Promise<T>,
  ): Promise<T> {
    return this.ready((client) => this.run(client, key, overrides), action);
  }

  private async ready<S extends ChatSession | RunSession, T>(
    sessionOf: (client: ResumableClient) => S,
    action: (session: S) => T | Promise<T>,
  ): Promise<T> {
    const session = sessionOf(this.client() ?? (await this.load()));
    if (session.getState().hydrated) return action(session);
    const hydrated = (s: { hydrated: boolean }) => s.hydrated;
    return whileHeld<{ hydrated: boolean }, T>(session, hydrated, this.timeoutMs, () =>
      action(session),
    );
  }

  /** Where the first paint's storage keeps records (`connection.persistence`). */
  persistence(): 'indexeddb' | 'memory' {
    return this.storage?.kind ?? 'memory';
  }

  private take(key: string): Promise<StoredRecords> | undefined {
    const read = this.reads.get(key);
    this.reads.delete(key);
    return read;
  }

  /** The storage the first paint read from, so the engine's fallback state is the same. */
  private withStorage<O extends { storage?: RecordStorage }>(overrides: O): O {
    return this.storage && !overrides.storage ? { ...overrides, storage: this.storage } : overrides;
  }

  private set(state: EngineState): void {
    this.state = state;
    for (const listener of this.listeners) listener();
  }
}

const defaults = new Map<string, ClientHandle>();

/** The page-wide handle for an endpoint (hooks used without a provider). */
export function defaultHandle(endpoint: string): ClientHandle {
  let handle = defaults.get(endpoint);
  if (!handle) {
    handle = new ClientHandle({ endpoint }, (engine) => engine.defaultClient(endpoint));
    defaults.set(endpoint, handle);
  }
  return handle;
}
