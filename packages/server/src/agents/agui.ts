import type { AGUIEvent } from '@resumable/protocol';
import {
  checkEvent,
  EventType,
  isKnownEventType,
  outcomeProblem,
  ResumableError,
} from '@resumable/protocol';
import { LOGGED_UNKNOWN_EVENTS } from '../defaults.js';
import { readSse, type UpstreamTimeouts, upstreamTimeouts } from './sse-reader.js';
import type { Agent } from './types.js';
import { fetchUpstream, quote } from './upstream-fetch.js';
import { describeUrl, redactor } from './upstream-secrets.js';

/** Where `aguiProxyAgent` sends each run, and how long it waits (`UpstreamTimeouts`). */
export interface AguiProxyAgentOptions extends UpstreamTimeouts {
  /**
   * The upstream AG-UI endpoint (agent-sdk-go, LangGraph, Mastra, CopilotKit runtimes…).
   * @default env AGUI_UPSTREAM_URL
   */
  url?: string;
  /** Extra request headers (an upstream API key). */
  headers?: Record<string, string>;
  /**
   * The `fetch` the upstream is called with (a proxy agent, a test's fake upstream).
   * @default globalThis.fetch
   */
  fetch?: typeof fetch;
}

/**
 * Makes any AG-UI backend resumable: POSTs the `RunAgentInput` upstream and yields the
 * AG-UI events it streams back; the manager stores them with offsets. Upstream streams
 * carry no offsets and cannot be resumed, so an upstream that drops before its terminal
 * event ends the run with `RUN_ERROR code:"upstream_failed"` (clear, not a hang), and so
 * does an event that is not AG-UI (not an object, a known type missing its ids) and the
 * upstream's own `RUN_ERROR` (its code is the upstream's word, not this server's: it is
 * quoted in the message). Events of types this server does not know are not progress: the
 * first few are passed on for the manager to drop and log, and only such events for
 * `idleTimeoutMs` is a stall. Nothing after the upstream's terminal event is read.
 *
 * Throws a `RangeError` when there is no `url` and no `AGUI_UPSTREAM_URL` (bad options throw
 * a `RangeError` everywhere in the server).
 */
export function aguiProxyAgent(options: AguiProxyAgentOptions = {}): Agent {
  const url = options.url ?? process.env.AGUI_UPSTREAM_URL;
  if (!url) throw new RangeError('aguiProxyAgent needs a url (or AGUI_UPSTREAM_URL)');
  const fetchImpl = options.fetch ?? globalThis.fetch;
  const { timeoutMs, ...bounds } = upstreamTimeouts(options);
  // Messages are stored for the thread's readers: the URL's query (a key) stays out.
  const what = `the upstream AG-UI agent at ${describeUrl(url)}`;
  const redact = redactor(url, options.headers);
  return async function* (input, { signal, keepAlive }) {
    const response = await fetchUpstream(
      fetchImpl,
      url,
      {
        method: 'POST',
        headers: {
          'Content-Type': 'application/json',
          Accept: 'text/event-stream',
          ...options.headers,
        },
        body: JSON.stringify(input),
        signal,
      },
      what,
      timeoutMs,
    );
    let progressAt = Date.now();
    let unknown = 0;
    for await (const message of readSse(response, what, bounds, keepAlive)) {
      const event = upstreamEvent(message.data, what, input);
      if (!isKnownEventType(event.type)) {
        // Not progress: a stream of them is a stall. The first few go to the manager, which
        // drops and logs them; the rest are skipped, so they cannot flood the log.
        if (Date.now() - progressAt >= bounds.idleTimeoutMs) {
          throw new ResumableError(
            'upstream_failed',
            `${what} sent only events of unknown types for ${bounds.idleTimeoutMs} ms`,
          );
        }
        if (++unknown <= LOGGED_UNKNOWN_EVENTS) yield event;
        continue;
      }
      progressAt = Date.now();
      if (event.type === EventType.RUN_ERROR) {
        const code = typeof event.code === 'string' ? ` (${quote(redact(event.code), 80)})` : '';
        const said = quote(redact(event.message), 500);
        throw new ResumableError('upstream_failed', `${what} failed: ${said}${code}`);
      }
      if (event.type === EventType.RUN_FINISHED) {
        const problem = outcomeProblem(event.outcome);
        if (problem !== null) {
          throw new ResumableError(
            'upstream_failed',
            `${what} sent a RUN_FINISHED that cannot be answered: ${problem}`,
          );
        }
        yield event;
        return;
      }
      yield event;
    }
    if (signal.aborted) return;
    throw new ResumableError(
      'upstream_failed',
      `${what} ended its stream before RUN_FINISHED (the connection dropped mid-run)`,
    );
  };
}

/**
 * One `data:` of the upstream, checked as AG-UI. Its run's `threadId` / `runId` are the
 * upstream's own and replaced by ours (the manager would anyway); an unknown type is
 * passed on (the manager drops and logs it); anything else that is not an event fails.
 */
function upstreamEvent(
  data: string,
  what: string,
  ids: { threadId: string; runId: string },
): AGUIEvent {
  let value: unknown;
  try {
    value = JSON.parse(data);
  } catch {
    throw new ResumableError(
      'upstream_failed',
      `${what} sent data that is not JSON: ${quote(data, 120)}`,
    );
  }
  const type = (value as { type?: unknown } | null)?.type;
  if (type === EventType.RUN_STARTED || type === EventType.RUN_FINISHED) {
    value = { ...(value as object), threadId: ids.threadId, runId: ids.runId };
  }
  const checked = checkEvent(value);
  if (!(checked instanceof ResumableError)) return checked;
  if (checked.code === 'unknown_event') return value as AGUIEvent;
  throw new ResumableError(
    'upstream_failed',
    `${what} sent an event that is not AG-UI: ${checked.message}`,
  );
}
