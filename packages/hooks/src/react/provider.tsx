import type { ReactNode } from 'react';
import {
  createContext,
  createElement,
  useCallback,
  useContext,
  useEffect,
  useMemo,
  useState,
  useSyncExternalStore,
} from 'react';
import type { ResumableEnvironment } from '../core/base/env.js';
import type { EngineLoader, EngineModule, EngineState } from '../core/client/client-handle.js';
import { ClientHandle, defaultHandle } from '../core/client/client-handle.js';
import type { ClientOptions, ResumableClient } from '../core/client/resumable-client.js';
import type { HeadersOption } from '../core/net/run-api.js';
import type { RecordStorage } from '../core/records/storage.js';

const HandleContext = createContext<ClientHandle | null>(null);

/** What `<ResumableProvider>` takes: the endpoint, and any session option shared by its hooks. */
export interface ResumableProviderProps extends Partial<ClientOptions> {
  /** Base URL of the Resumable endpoints, e.g. `/api`. */
  endpoint: string;
  /** @default globalThis.fetch */
  fetch?: typeof fetch;
  /** @default IndexedDB (database `resumable`), memory where it is missing */
  storage?: RecordStorage;
  /** Extra request headers, re-evaluated per request (auth). */
  headers?: HeadersOption;
  /** A client you made yourself (tests, several endpoints); the other props are then ignored. */
  client?: ResumableClient;
  /**
   * Loads the engine (sessions, transport, reconnect…), which the hooks start on their first
   * render while the first paint shows the stored transcript. Tests delay or fail it here.
   * @default () => import('@resumable/hooks' engine chunk)
   */
  loadEngine?: EngineLoader;
  /**
   * The engine loads within this, else the hooks' `error` is a `timeout` (Retry loads again).
   * @default 15000
   */
  engineTimeoutMs?: number;
  /** The app, or the part of it whose hooks use this client. */
  children?: ReactNode;
}

/**
 * Shared configuration and the page's sessions. Sessions live as long as the provider:
 * components under it asking for the same key share one connection and one store.
 */
export function ResumableProvider(props: ResumableProviderProps): ReactNode {
  const {
    children,
    client: given,
    fetch: fetchFn,
    env,
    loadEngine,
    engineTimeoutMs,
    ...rest
  } = props;
  const [own] = useState(() => {
    const options: ClientOptions = {
      ...rest,
      env: fetchFn ? { ...env, fetch: fetchFn } : (env as Partial<ResumableEnvironment>),
    };
    let client: ResumableClient | null = null;
    const make = (engine: EngineModule) => {
      client ??= new engine.ResumableClient(options);
      return client;
    };
    return new ClientHandle(options, make, loadEngine, engineTimeoutMs);
  });
  const handle = useMemo(() => (given ? ClientHandle.of(given) : own), [given, own]);
  return createElement(HandleContext.Provider, { value: handle }, children);
}

/** The provider's handle, or the page-wide one for `endpoint` when there is no provider. */
export function useClientHandle(endpoint?: string): ClientHandle {
  const handle = useOptionalHandle(endpoint);
  if (handle) return handle;
  throw new Error('useResumableRun/useResumableChat need an `endpoint` or a <ResumableProvider>');
}

/** `useClientHandle`, or null where there is neither a provider nor an `endpoint`. */
export function useOptionalHandle(endpoint?: string): ClientHandle | null {
  const handle = useContext(HandleContext);
  if (handle && (endpoint === undefined || endpoint === handle.options.endpoint)) return handle;
  return endpoint === undefined ? null : defaultHandle(endpoint);
}

/**
 * Where the handle's engine is; its load starts with the first render that asks (beside
 * the records' read, not after it). The state re-renders when it loads or fails.
 */
export function useEngine(handle: ClientHandle): EngineState {
  if (!handle.getState().loaded && !handle.getState().error) void handle.load().catch(() => {});
  const subscribe = useCallback((listener: () => void) => handle.subscribe(listener), [handle]);
  const state = () => handle.getState();
  return useSyncExternalStore(subscribe, state, state);
}

/**
 * The engine's client (sessions, `@resumable/hooks/core`) of the provider or `endpoint`,
 * or null until the engine has loaded; asking starts loading it.
 */
export function useResumableClient(endpoint?: string): ResumableClient | null {
  const handle = useClientHandle(endpoint);
  const { loaded } = useEngine(handle);
  // biome-ignore lint/correctness/useExhaustiveDependencies: a new client only when it loads
  return useMemo(() => handle.client(), [handle, loaded]);
}

/** Holds `session` for the component's lifetime; StrictMode-safe (deferred release). */
export function useRetained(session: { retain(): () => void } | null): void {
  useEffect(() => session?.retain(), [session]);
}
