import type { AGUIEvent } from '@resumable/protocol';
import { isTerminalEvent, ResumableError } from '@resumable/protocol';
import { fetchUpstream, readSse, type UpstreamTimeouts, upstreamTimeouts } from './sse-reader.js';
import type { Agent } from './types.js';

export interface AguiProxyAgentOptions extends UpstreamTimeouts {
  /**
   * The upstream AG-UI endpoint (agent-sdk-go, LangGraph, Mastra, CopilotKit runtimes…).
   * @default env AGUI_UPSTREAM_URL
   */
  url?: string;
  /** Extra request headers (an upstream API key). */
  headers?: Record<string, string>;
  /** @default globalThis.fetch */
  fetch?: typeof fetch;
}

/**
 * Makes any AG-UI backend resumable: POSTs the `RunAgentInput` upstream and yields the
 * AG-UI events it streams back; the manager stores them with offsets. Upstream streams
 * carry no offsets and cannot be resumed, so an upstream that drops before its terminal
 * event ends the run with `RUN_ERROR code:"upstream_failed"` (clear, not a hang).
 */
export function aguiProxyAgent(options: AguiProxyAgentOptions = {}): Agent {
  const url = options.url ?? process.env.AGUI_UPSTREAM_URL;
  if (!url) throw new Error('aguiProxyAgent needs a url (or AGUI_UPSTREAM_URL)');
  const fetchImpl = options.fetch ?? globalThis.fetch;
  const { timeoutMs, idleTimeoutMs: idleMs } = upstreamTimeouts(options);
  return async function* (input, { signal }) {
    const what = `the upstream AG-UI agent at ${url}`;
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
    for await (const message of readSse(response, what, idleMs)) {
      let event: AGUIEvent;
      try {
        event = JSON.parse(message.data) as AGUIEvent;
      } catch {
        throw new ResumableError(
          'upstream_failed',
          `${what} sent data that is not JSON: ${message.data.slice(0, 120)}`,
        );
      }
      yield event;
      if (isTerminalEvent(event)) return;
    }
    if (signal.aborted) return;
    throw new ResumableError(
      'upstream_failed',
      `${what} ended its stream before RUN_FINISHED (the connection dropped mid-run)`,
    );
  };
}
