import type { ReactNode } from 'react';
import { createContext, createElement, useContext, useState } from 'react';
import type { HeadersOption } from '../core/api.js';
import type { ResumableEnvironment } from '../core/env.js';
import type { ClientOptions } from '../core/registry.js';
import { defaultClient, ResumableClient } from '../core/registry.js';
import type { RecordStorage } from '../core/storage.js';

const ClientContext = createContext<ResumableClient | null>(null);

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
  children?: ReactNode;
}

/**
 * Shared configuration and the page's sessions. Sessions live as long as the provider:
 * components under it asking for the same key share one connection and one store.
 */
export function ResumableProvider(props: ResumableProviderProps): ReactNode {
  const { children, client: given, fetch: fetchFn, env, ...options } = props;
  const [own] = useState(() =>
    given
      ? null
      : new ResumableClient({
          ...options,
          env: fetchFn ? { ...env, fetch: fetchFn } : (env as Partial<ResumableEnvironment>),
        }),
  );
  const client = given ?? own!;
  return createElement(ClientContext.Provider, { value: client }, children);
}

/** The provider's client, or the page-wide one for `endpoint` when there is no provider. */
export function useResumableClient(endpoint?: string): ResumableClient {
  const client = useContext(ClientContext);
  if (client && (endpoint === undefined || endpoint === client.options.endpoint)) return client;
  if (endpoint === undefined) {
    throw new Error('useResumableRun/useResumableChat need an `endpoint` or a <ResumableProvider>');
  }
  return defaultClient(endpoint);
}

/** `useResumableClient`, or null where there is neither a provider nor an `endpoint`. */
export function useOptionalClient(endpoint?: string): ResumableClient | null {
  const client = useContext(ClientContext);
  if (client && (endpoint === undefined || endpoint === client.options.endpoint)) return client;
  return endpoint === undefined ? null : defaultClient(endpoint);
}
