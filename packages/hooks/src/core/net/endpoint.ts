import type { HeadersOption } from './run-api.js';
import { RunApi } from './run-api.js';

/**
 * Where the protocol's endpoints are and how to call them: what the lower-level calls of
 * `@resumable/hooks/upload` and `@resumable/hooks/threads` take. The same names as the
 * provider's and the sessions' options, so an app's settings can be passed as they are.
 *
 * @example
 * ```ts
 * const server: EndpointOptions = { endpoint: '/api', headers: { 'X-App': 'notes' } };
 * const thread = await createThread(server);
 * ```
 */
export interface EndpointOptions {
  /** Base URL of the protocol's endpoints, e.g. `/api`. */
  endpoint: string;
  /** Extra request headers (an auth token), evaluated before every request. */
  headers?: HeadersOption;
  /** The fetch requests go through. @default the global `fetch`, looked up per call */
  fetch?: typeof fetch;
  /** Every request settles within this or fails with `timeout`. @default 15000 */
  requestTimeoutMs?: number;
}

/** The endpoints of `options` as typed calls. */
export function endpointApi(options: EndpointOptions): RunApi {
  return new RunApi({
    endpoint: options.endpoint,
    // Looked up per call, so a fetch polyfilled or mocked after import is still used.
    fetch: options.fetch ?? ((input, init) => globalThis.fetch(input, init)),
    now: Date.now,
    headers: options.headers,
    requestTimeoutMs: options.requestTimeoutMs,
  });
}
