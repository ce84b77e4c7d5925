import { errorFromBody, ResumableError } from '@resumable/protocol';
import {
  DEFAULT_REQUEST_TIMEOUT_MS,
  MAX_ERROR_BODY_BYTES,
  MAX_JSON_BYTES,
} from '../base/defaults.js';
import type { ObservedBase, ObservedScope } from '../base/observe.js';
import { notify, observed, requestNumber } from '../base/observe.js';
import { timeoutError } from '../base/timeout.js';

/**
 * `Retry-After` as seconds: delta-seconds (fractions too: `0.5`) or an HTTP date. Anything
 * else is undefined (the retry policy's own delay applies). The policy clamps it.
 */
export function parseRetryAfter(value: string | null, now: number): number | undefined {
  if (value === null || value.trim() === '') return undefined;
  const trimmed = value.trim();
  if (/^\d+(\.\d+)?$/.test(trimmed)) {
    const seconds = Number(trimmed);
    return Number.isFinite(seconds) ? seconds : undefined;
  }
  // An HTTP date names a weekday and a month; '-1' or '1e9' must not parse as a year.
  const date = /^[a-z]{3}, /i.test(trimmed) ? Date.parse(trimmed) : Number.NaN;
  return Number.isNaN(date) ? undefined : Math.max(0, Math.ceil((date - now) / 1000));
}

function isJson(response: Response): boolean {
  const type = response.headers.get('Content-Type') ?? '';
  return /^application\/(.+\+)?json\b/i.test(type.trim());
}

/**
 * A response body as text, at most `limit` bytes: beyond it, the body is cancelled and
 * null returned (the caller decides what an oversized answer means).
 */
export async function readTextBounded(response: Response, limit: number): Promise<string | null> {
  if (!response.body) return '';
  const reader = response.body.getReader();
  const decoder = new TextDecoder();
  let text = '';
  let bytes = 0;
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      bytes += value.byteLength;
      if (bytes > limit) {
        reader.cancel().catch(() => {});
        return null;
      }
      text += decoder.decode(value, { stream: true });
    }
  } finally {
    reader.releaseLock?.();
  }
  return text + decoder.decode();
}

/**
 * A non-2xx response as a typed error. Only the server's own JSON error (right content
 * type, known code) is taken at its word; an HTML page from a proxy is
 * `unexpected_response`, retried, never a reason to delete a record.
 */
export async function errorFromResponse(response: Response, now: number): Promise<ResumableError> {
  let body: unknown = null;
  if (isJson(response)) {
    try {
      const text = await readTextBounded(response, MAX_ERROR_BODY_BYTES);
      if (text !== null) body = JSON.parse(text);
    } catch {
      // Not JSON after all, or the body failed: not the server's word.
    }
  } else {
    response.body?.cancel().catch(() => {});
  }
  return errorFromBody(
    response.status,
    body,
    parseRetryAfter(response.headers.get('Retry-After'), now),
  );
}

export function isAbort(error: unknown, signal?: AbortSignal): boolean {
  return (
    signal?.aborted === true ||
    (error instanceof Error && (error.name === 'AbortError' || error.name === 'TimeoutError'))
  );
}

/** A fetch that failed before any response (DNS, refused, reset, offline) as `network`. */
export function networkError(cause: unknown): ResumableError {
  const message = cause instanceof Error ? cause.message : String(cause);
  return new ResumableError('network', `network error: ${message}`, { cause });
}

// The timeout helpers live apart (`timeout.ts`): the first paint's storage guard needs them, not fetch.
export { timeoutError, withTimeout } from '../base/timeout.js';

export interface JsonRequest {
  method?: 'GET' | 'POST' | 'PATCH' | 'DELETE';
  headers?: Record<string, string>;
  body?: unknown;
  signal?: AbortSignal;
  /** The conversation the request is for, told to the observers (`observeClient`). */
  observe?: ObservedScope | undefined;
}

/** A request the client sent (`observeClient`); its `ObservedResponse` names its `id`. */
export interface ObservedRequest extends ObservedBase {
  /** A request goes out. */
  readonly type: 'request';
  /** Its number on the page. */
  readonly id: number;
  /** `GET`, `POST`, `PATCH`, `DELETE`. */
  readonly method: string;
  /** The URL asked, with its query (`?after=` for an event stream). */
  readonly url: string;
  /** The resume point an event stream asks for (`after=`); null for any other request. */
  readonly after: number | null;
}

/** The answer to request `id` (its headers), or its failure (`status` null). */
export interface ObservedResponse extends ObservedBase {
  /** A request was answered, or failed. */
  readonly type: 'response';
  /** The request's `id` (`ObservedRequest.id`). */
  readonly id: number;
  /** The answer's status; null when none came (network error, timeout, abort). */
  readonly status: number | null;
  /** From the request to its answer's headers, or to its failure. */
  readonly ms: number;
  /** What it failed with, typed; null when it was answered with a 2xx. */
  readonly error: ResumableError | null;
}

/** One observed request: tells its answer (`answered`), and names it for its stream's end. */
export interface RequestTeller {
  readonly id: number;
  readonly scope: ObservedScope;
  /** When it went out (epoch ms). */
  readonly sent: number;
  /** Its answer's `status` (null: none came) and the error, if it failed. */
  answered(status: number | null, error: ResumableError | null): void;
}

/**
 * Tells the observers that a request goes out, when one listens and the request names its
 * conversation: the teller of its answer, else null (nothing built).
 */
export function observeRequest(
  scope: ObservedScope | undefined,
  method: string,
  url: string,
  after: number | null,
): RequestTeller | null {
  if (!scope || !observed()) return null;
  const { endpoint, key } = scope;
  const id = requestNumber();
  const sent = Date.now();
  notify<ObservedRequest>({ type: 'request', endpoint, key, id, method, url, after });
  return {
    id,
    scope,
    sent,
    answered(status, error) {
      const ms = Date.now() - sent;
      notify<ObservedResponse>({ type: 'response', endpoint, key, id, status, ms, error });
    },
  };
}

export interface RequestLimits {
  /** The whole request, body included, must settle within this. @default 15000 */
  timeoutMs?: number;
  /** A JSON answer larger than this is `unexpected_response`. @default 64 MiB */
  maxBytes?: number;
}

/**
 * One JSON request, bounded in time and size. Resolves to the parsed body (null for an
 * empty one) with the status; rejects with a `ResumableError`: `network` (no answer),
 * `timeout`, `aborted` (the caller's signal), an error answer's own code, or
 * `unexpected_response` (a page that is not the server's JSON).
 */
export async function requestJson<T>(
  fetchFn: typeof fetch,
  url: string,
  request: JsonRequest,
  now: () => number,
  limits: RequestLimits = {},
): Promise<{ status: number; body: T }> {
  const timeoutMs = limits.timeoutMs ?? DEFAULT_REQUEST_TIMEOUT_MS;
  const headers: Record<string, string> = { Accept: 'application/json', ...request.headers };
  if (request.body !== undefined) headers['Content-Type'] = 'application/json';
  const local = new AbortController();
  const onOuterAbort = () => local.abort();
  request.signal?.addEventListener('abort', onOuterAbort, { once: true });
  let timedOut = false;
  // A real timer (not the environment's): a hung request must end even under a test clock.
  const timer = setTimeout(() => {
    timedOut = true;
    local.abort();
  }, timeoutMs);
  const fail = (error: unknown): ResumableError => {
    if (timedOut) return timeoutError(`${request.method ?? 'GET'} ${url}`, timeoutMs);
    if (isAbort(error, request.signal)) return new ResumableError('aborted', 'request aborted');
    return error instanceof ResumableError ? error : networkError(error);
  };
  const teller = observeRequest(request.observe, request.method ?? 'GET', url, null);
  try {
    if (request.signal?.aborted) throw new ResumableError('aborted', 'request aborted');
    let response: Response;
    try {
      response = await fetchFn(url, {
        method: request.method ?? 'GET',
        headers,
        ...(request.body === undefined ? {} : { body: JSON.stringify(request.body) }),
        signal: local.signal,
      });
    } catch (error) {
      const failed = fail(error);
      teller?.answered(null, failed);
      throw failed;
    }
    if (!response.ok) {
      let failed: ResumableError;
      try {
        failed = fail(await errorFromResponse(response, now()));
      } catch (error) {
        failed = fail(error);
      }
      teller?.answered(response.status, failed);
      throw failed;
    }
    teller?.answered(response.status, null);
    let text: string | null;
    try {
      text = await readTextBounded(response, limits.maxBytes ?? MAX_JSON_BYTES);
    } catch (error) {
      throw fail(error);
    }
    if (text === null) {
      throw new ResumableError('unexpected_response', `answer from ${url} is too large`, {
        status: response.status,
      });
    }
    if (text === '') return { status: response.status, body: null as T };
    if (!isJson(response)) {
      throw new ResumableError('unexpected_response', `expected JSON from ${url}`, {
        status: response.status,
      });
    }
    try {
      return { status: response.status, body: JSON.parse(text) as T };
    } catch {
      throw new ResumableError('unexpected_response', `expected JSON from ${url}`, {
        status: response.status,
      });
    }
  } finally {
    clearTimeout(timer);
    request.signal?.removeEventListener('abort', onOuterAbort);
  }
}
