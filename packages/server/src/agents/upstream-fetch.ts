import { ResumableError } from '@resumable/protocol';
import { QUOTED_UPSTREAM_CHARS } from '../defaults.js';
import { messageOf } from './sse-reader.js';
import { redactor } from './upstream-secrets.js';

/**
 * Reads the message out of a body in the upstream's own error shape; undefined for any
 * other body (its text is then quoted, never taken as the upstream's error).
 */
export type UpstreamErrorShape = (body: unknown) => string | undefined;

/**
 * `fetch` with upstream failures as `upstream_failed`: refused, reset, no answer within
 * `timeoutMs`, a non-2xx status (a redirect included: never followed), and a 2xx that is
 * not an event stream (an HTML page from a proxy, a JSON body). The run's own signal still
 * aborts it (cancel). Quoted upstream text has the request's secrets (its query values,
 * header values) redacted: an upstream may echo the API key back.
 */
export async function fetchUpstream(
  fetchImpl: typeof fetch,
  url: string,
  init: RequestInit & { signal: AbortSignal },
  what: string,
  timeoutMs: number,
  errorShape: UpstreamErrorShape = () => undefined,
): Promise<Response> {
  let response: Response;
  const redact = redactor(url, init.headers);
  const timeout = new AbortController();
  const timer = setTimeout(() => timeout.abort(), timeoutMs);
  try {
    const signal = AbortSignal.any([init.signal, timeout.signal]);
    // Not followed: a redirect would re-send the conversation and the headers (an API
    // key) to wherever the upstream points, our own network included.
    response = await fetchImpl(url, { ...init, redirect: 'manual', signal });
  } catch (error) {
    if (init.signal.aborted) throw error;
    if (timeout.signal.aborted) {
      throw new ResumableError('upstream_failed', `${what} did not answer within ${timeoutMs} ms`);
    }
    const reason = redact(messageOf(error));
    throw new ResumableError('upstream_failed', `${what} is unreachable: ${reason}`, {
      cause: error,
    });
  } finally {
    clearTimeout(timer);
  }
  const type = response.headers.get('content-type');
  // No type at all is let through (some servers omit it); a wrong one is not a stream.
  const stream = type === null || /^\s*text\/event-stream\s*(;|$)/i.test(type);
  if (response.ok && stream) return response;
  const location = redact(response.headers.get('location') ?? '');
  const answered = response.ok
    ? `answered ${response.status} with ${quote(type ?? '', 100)}, not an event stream`
    : location !== '' && response.status >= 300 && response.status < 400
      ? `answered ${response.status}, a redirect to ${quote(location, 200)} (not followed)`
      : `answered ${response.status}`;
  const text = redact(await readPrefix(response, QUOTED_UPSTREAM_CHARS, timeoutMs));
  const detail = errorOf(text, errorShape) ?? quote(text, QUOTED_UPSTREAM_CHARS);
  throw new ResumableError('upstream_failed', `${what} ${answered}${detail ? `: ${detail}` : ''}`);
}

/** The message of a body in the upstream's error shape, quoted; undefined otherwise. */
function errorOf(text: string, errorShape: UpstreamErrorShape): string | undefined {
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch {
    return undefined;
  }
  const message = errorShape(body);
  return typeof message === 'string' && message.trim() !== ''
    ? quote(message, QUOTED_UPSTREAM_CHARS)
    : undefined;
}

/**
 * Upstream text fit for one line of an error message: control characters and runs of
 * whitespace become one space, at most `max` characters.
 */
export function quote(text: string, max: number): string {
  return text
    .replace(/[\s\p{Cc}]+/gu, ' ')
    .trim()
    .slice(0, max);
}

/** The first `max` characters of a body, read within `timeoutMs`; the rest is never read. */
async function readPrefix(response: Response, max: number, timeoutMs: number): Promise<string> {
  const reader = response.body?.pipeThrough(new TextDecoderStream()).getReader();
  if (!reader) return '';
  let text = '';
  let timer: ReturnType<typeof setTimeout> | undefined;
  const late = new Promise<null>((resolve) => {
    timer = setTimeout(() => resolve(null), timeoutMs);
  });
  try {
    while (text.length < max) {
      const step = await Promise.race([reader.read(), late]);
      if (step === null || step.done) break;
      text += step.value;
    }
  } catch {
    // What was read so far is all the message needs.
  } finally {
    clearTimeout(timer);
    void reader.cancel().catch(() => {});
  }
  return text.slice(0, max);
}
