import { ChatSession } from '../chat/chat-session.js';
import type { ChatFeatures } from '../chat/host.js';
import type { ChatSessionOptions } from '../chat/options.js';
import type { RunSessionOptions } from '../run/run-session.js';
import { RunSession } from '../run/run-session.js';

/**
 * The chat's features that load on first use, each a chunk of its own: the chat reaches them
 * only through `ChatFeatures` (`chat/host.ts`), so `chat/` imports none of them.
 */
const FEATURES: ChatFeatures = {
  branchActions: () => import('../branches/branch-actions.js'),
  continuationRefusal: () => import('../interrupts/refused-continuation.js'),
};

/** Shared configuration: what `<ResumableProvider>` holds. Any session option but the key. */
export type ClientOptions = Omit<RunSessionOptions, 'key'>;

/**
 * One session per key per page (TanStack's QueryClient habit): every component asking for
 * the same key gets the same session, hence one connection and one store.
 */
export class ResumableClient {
  private readonly runs = new Map<string, RunSession>();
  private readonly chats = new Map<string, ChatSession>();

  /** What every session it makes starts from (the endpoint, headers, storage…). */
  readonly options: ClientOptions;

  constructor(options: ClientOptions) {
    this.options = options;
  }

  /** The run session of `key`, made on first ask with the client's options and `overrides`. */
  runSession(key: string, overrides: Partial<RunSessionOptions> = {}): RunSession {
    let session = this.runs.get(key);
    if (!session) {
      session = new RunSession({ ...this.options, ...overrides, key });
      this.runs.set(key, session);
    }
    return session;
  }

  /** The conversation of `key`, made on first ask with the client's options and `overrides`. */
  chatSession(key: string, overrides: Partial<ChatSessionOptions> = {}): ChatSession {
    let chat = this.chats.get(key);
    if (!chat) {
      const options: ChatSessionOptions = { ...this.options, ...overrides, key };
      chat = new ChatSession(options, this.runSession(key, overrides), FEATURES);
      this.chats.set(key, chat);
    }
    return chat;
  }

  /** Ends every session (tests, HMR). A later call for a key makes a fresh session. */
  async dispose(): Promise<void> {
    const chats = [...this.chats.values()];
    const runs = [...this.runs.values()];
    this.chats.clear();
    this.runs.clear();
    for (const chat of chats) chat.dispose();
    await Promise.all(runs.map((run) => run.dispose()));
  }
}

const defaults = new Map<string, ResumableClient>();

/** The page-wide client for an endpoint, for hooks used without a provider. */
export function defaultClient(endpoint: string): ResumableClient {
  let client = defaults.get(endpoint);
  if (!client) {
    client = new ResumableClient({ endpoint });
    defaults.set(endpoint, client);
  }
  return client;
}

/** Disposes the page-wide clients (tests simulate a reload with this). */
export async function disposeDefaultClients(): Promise<void> {
  const clients = [...defaults.values()];
  defaults.clear();
  await Promise.all(clients.map((client) => client.dispose()));
}
