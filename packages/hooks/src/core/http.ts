import { errorFromBody, ResumableError } from '@resumable/protocol';

/** `Retry-After` as seconds: either delta-seconds or an HTTP date. */
export function parseRetryAfter(value: string | null, now: number): number | undefined {
  if (value === null || value.trim() === '') return undefined;
  const trimmed = value.trim();
  if (/^\d+$/.test(trimmed)) return Number(trimmed);
  const date = Date.parse(trimmed);
  return Number.isNaN(date) ? undefined : Math.max(0, Math.ceil((date - now) / 1000));
}

/** A non-2xx response as a typed error, reading the JSON error body when there is one. */
export async function errorFromResponse(response: Response, now: number): Promise<ResumableError> {
  let body: unknown = null;
  try {
    body = JSON.parse(await response.text());
  } catch {
    // Proxies answer HTML error pages; the status still carries the meaning.
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

export interface JsonRequest {
  method?: 'GET' | 'POST';
  headers?: Record<string, string>;
  body?: unknown;
  signal?: AbortSignal;
}

/**
 * One JSON request. Resolves to the parsed body (null for an empty one) with the status,
 * rejects with a `ResumableError` for network failures and non-2xx answers.
 */
export async function requestJson<T>(
  fetchFn: typeof fetch,
  url: string,
  request: JsonRequest,
  now: () => number,
): Promise<{ status: number; body: T }> {
  const headers: Record<string, string> = { Accept: 'application/json', ...request.headers };
  if (request.body !== undefined) headers['Content-Type'] = 'application/json';
  let response: Response;
  try {
    response = await fetchFn(url, {
      method: request.method ?? 'GET',
      headers,
      ...(request.body === undefined ? {} : { body: JSON.stringify(request.body) }),
      ...(request.signal ? { signal: request.signal } : {}),
    });
  } catch (error) {
    if (isAbort(error, request.signal)) throw new ResumableError('aborted', 'request aborted');
    throw networkError(error);
  }
  if (!response.ok) throw await errorFromResponse(response, now());
  let text: string;
  try {
    text = await response.text();
  } catch (error) {
    throw networkError(error);
  }
  if (text === '') return { status: response.status, body: null as T };
  try {
    return { status: response.status, body: JSON.parse(text) as T };
  } catch {
    throw new ResumableError('malformed_event', `expected JSON from ${url}`, {
      status: response.status,
    });
  }
}
