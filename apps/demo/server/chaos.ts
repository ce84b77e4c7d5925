import { setTimeout as sleep } from 'node:timers/promises';
import { isKnownEventType } from '@resumable/protocol';
import type { Agent } from '@resumable/server';
import { RESTART_EXIT_CODE } from './supervisor.js';

/**
 * Demo-only endpoints under `/api/__chaos/` that break things on purpose, for the chaos
 * panel and the end-to-end tests. They exist in `apps/demo` only: the kit's server has no
 * such door. The demo server listens on 127.0.0.1, and nothing here reads or leaks data.
 *
 * | method, path        | does                                                         |
 * |---------------------|--------------------------------------------------------------|
 * | GET  state          | `{ pid, startedAt, delayMs, agent }`                         |
 * | POST cut `{runId?}` | closes open event streams server-side (clients must resume)  |
 * | POST restart        | `202`, then the process exits; the supervisor starts it again |
 * | POST slow `{delayMs}` | adds a delay before each event agents produce (0 = off)     |
 * | POST slow `{delayMs, fromEvent}` | that delay from the next event of that AG-UI type on (the current one until then) |
 * | GET  streams        | event streams open now and opened since start, of threads and of runs (`RunManager.streamCounts`) |
 */

export const CHAOS_PREFIX = '/api/__chaos/';

export interface ChaosOptions {
  /** Closes open SSE streams (of one run, or all); returns how many when it knows. */
  dropConnections(runId?: string): number | undefined | Promise<number | undefined>;
  /** Name of the agent, for the panel. */
  agent: string;
  /** `{thread: {open, opened}, run: {open, opened}}`, what `GET streams` answers. */
  streamCounts?: () => unknown;
  /**
   * How the process ends on "restart". Tests inject a spy.
   * @default exits with `RESTART_EXIT_CODE`, without a graceful shutdown (a crash)
   */
  exit?: () => void;
}

export interface Chaos {
  /** Answers a `/api/__chaos/*` request. */
  fetch(request: Request): Promise<Response>;
  /** The current extra delay per event, in ms. */
  readonly delayMs: number;
  /**
   * Wraps an agent so "slow the stream" applies to runs already going; its `validate`
   * (the checks a `POST` runs before answering 201) is kept.
   */
  slow(agent: Agent): Agent;
}

const json = (body: unknown, status = 200) =>
  new Response(JSON.stringify(body), { status, headers: { 'content-type': 'application/json' } });

async function readJson(request: Request): Promise<Record<string, unknown>> {
  try {
    const body: unknown = await request.json();
    return body && typeof body === 'object' ? (body as Record<string, unknown>) : {};
  } catch {
    return {};
  }
}

export function createChaos(options: ChaosOptions): Chaos {
  const startedAt = Date.now();
  const exit = options.exit ?? (() => process.exit(RESTART_EXIT_CODE));
  let delayMs = 0;
  /**
   * A delay that takes over at the next event of a type: a test holds an answer at an
   * exact point (a tool call's arguments) instead of racing the stream to it.
   */
  let next: { delayMs: number; fromEvent: string } | null = null;

  return {
    get delayMs() {
      return delayMs;
    },
    slow(agent) {
      const slowed: Agent = async function* (input, context) {
        for await (const event of agent(input, context)) {
          // Read per event, so the switch takes effect in the middle of an answer.
          if (next !== null && event.type === next.fromEvent) {
            delayMs = next.delayMs;
            next = null;
          }
          if (delayMs > 0) await sleep(delayMs, undefined, { signal: context.signal });
          yield event;
        }
      };
      if (agent.validate) slowed.validate = agent.validate;
      return slowed;
    },
    async fetch(request) {
      const action = new URL(request.url).pathname.slice(CHAOS_PREFIX.length);
      const method = request.method;
      if (action === 'state' && method === 'GET') {
        return json({ pid: process.pid, startedAt, delayMs, agent: options.agent });
      }
      if (action === 'streams' && method === 'GET') return json(options.streamCounts?.() ?? null);
      if (action === 'cut' && method === 'POST') {
        const { runId } = await readJson(request);
        const dropped = await options.dropConnections(
          typeof runId === 'string' && runId ? runId : undefined,
        );
        return json({ dropped: dropped ?? null });
      }
      if (action === 'restart' && method === 'POST') {
        // Answer first, then die abruptly: no graceful close, like a crash or an OOM kill.
        setTimeout(exit, 50);
        return json({ restarting: true }, 202);
      }
      if (action === 'slow' && method === 'POST') {
        const { delayMs: wanted, fromEvent } = await readJson(request);
        if (typeof wanted !== 'number' || !Number.isFinite(wanted) || wanted < 0 || wanted > 5000) {
          return json(
            { error: { code: 'bad_request', message: 'delayMs must be a number from 0 to 5000' } },
            400,
          );
        }
        if (fromEvent === undefined) {
          delayMs = wanted;
          next = null;
          return json({ delayMs });
        }
        if (!isKnownEventType(fromEvent)) {
          return json(
            {
              error: {
                code: 'bad_request',
                message: 'fromEvent must be an AG-UI event type, such as TOOL_CALL_ARGS',
              },
            },
            400,
          );
        }
        next = { delayMs: wanted, fromEvent };
        return json({ delayMs, next });
      }
      return json(
        { error: { code: 'bad_request', message: `unknown chaos action ${action}` } },
        400,
      );
    },
  };
}
