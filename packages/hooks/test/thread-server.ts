import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { AGUIEvent, RunMessage } from '@resumable/protocol';
import { encodeFrameJson, foldLog, snapshotOf, toEnvelopes } from '@resumable/protocol';
import type { TabLocks } from '../src/core/base/env.js';
import { createManualSignal } from '../src/core/base/env.js';
import type { ChatSession } from '../src/core/chat/chat-session.js';
import { ResumableClient } from '../src/core/client/resumable-client.js';
import type { RecordStorage } from '../src/core/records/storage.js';
import { scriptEvents } from './fake-server.js';

/**
 * One thread on 127.0.0.1 with its thread event stream, its runs and its history, for the
 * tests of what a chat does with the thread stream: each run's events are produced only by
 * `step`, and any request can be held (`hold`) until the test lets it through, so the
 * order in which a chat hears of a run (the snapshot join, the thread stream's
 * announcement) is the test's to choose.
 */

export interface Logged {
  method: string;
  path: string;
  after: number | null;
}

interface Run {
  events: AGUIEvent[];
  pending: AGUIEvent[];
  streams: Set<ServerResponse>;
}

interface Held {
  arrived: Promise<void>;
  release(): void;
}

export const THREAD = 't1';
export const TOKEN = 'tok-t1';

/** A device's chat `c` on the thread (its own client, pushed to `clients`), held. */
export function threadDevice(
  url: string,
  clients: ResumableClient[],
  storage: RecordStorage,
  locks: TabLocks | null,
): ChatSession {
  const client = new ResumableClient({
    endpoint: url,
    storage,
    backoff: { initialMs: 10, maxMs: 50 },
    onWarning: () => {},
    env: {
      online: createManualSignal(true),
      visible: createManualSignal(true),
      onPageHide: () => () => {},
      locks,
    },
  });
  clients.push(client);
  const chat = client.chatSession('c', { threadId: THREAD, token: TOKEN });
  chat.retain();
  return chat;
}

export class ThreadServer {
  url = '';
  readonly requests: Logged[] = [];
  /** The branch `GET /threads/{id}/messages` answers (newest page, everything). */
  history: RunMessage[] = [];
  title: string | null = null;
  private readonly runs = new Map<string, Run>();
  private readonly threadEvents: unknown[] = [];
  private readonly threadStreams = new Set<ServerResponse>();
  private readonly holds = new Map<string, { arrive(): void; gate: Promise<void> }>();
  private deleted = false;
  private readonly server = createServer((req, res) => void this.handle(req, res));

  async start(): Promise<this> {
    await new Promise<void>((resolve) => this.server.listen(0, '127.0.0.1', resolve));
    this.url = `http://127.0.0.1:${(this.server.address() as AddressInfo).port}/api`;
    return this;
  }

  async close(): Promise<void> {
    this.server.closeAllConnections();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }

  /** Holds the next request `GET <path>` (path without `/api` and query) until released. */
  hold(path: string): Held {
    let arrive = () => {};
    let release = () => {};
    const arrived = new Promise<void>((r) => {
      arrive = r;
    });
    const gate = new Promise<void>((r) => {
      release = r;
    });
    this.holds.set(path, { arrive, gate });
    return { arrived, release };
  }

  /** `GET /runs/{runId}/events` requests' `after`, in order. */
  eventsAfter(runId: string): (number | null)[] {
    return this.requests.filter((r) => r.path === `/runs/${runId}/events`).map((r) => r.after);
  }

  /** A run started in the thread (elsewhere), announced with `run_started`. */
  startRun(
    runId: string,
    options: { tokens: number; messages?: RunMessage[]; parentMessageId?: string | null },
  ): void {
    this.runs.set(runId, {
      events: [],
      pending: scriptEvents(runId, THREAD, options.tokens),
      streams: new Set(),
    });
    const value: Record<string, unknown> = { runId, messages: options.messages ?? [] };
    if (options.parentMessageId !== undefined) value.parentMessageId = options.parentMessageId;
    this.announce('resumable.run_started', value);
  }

  /** Produces `n` more events of a run (its end announced with `run_ended`). */
  step(runId: string, n: number): void {
    const run = this.runs.get(runId)!;
    for (let i = 0; i < n && run.pending.length > 0; i++) {
      const event = run.pending.shift()!;
      run.events.push(event);
      const frame = encodeFrameJson(run.events.length, JSON.stringify(event));
      for (const res of run.streams) res.write(frame);
      if (event.type === 'RUN_FINISHED') {
        for (const res of run.streams) res.end();
        run.streams.clear();
        const cancelled = (event as { outcome?: { type?: string } }).outcome?.type === 'cancelled';
        this.announce('resumable.run_ended', {
          runId,
          status: cancelled ? 'cancelled' : 'finished',
        });
      }
    }
  }

  /** The run's assistant text as `GET /runs/{id}` folds it. */
  text(runId: string): string {
    return foldLog(toEnvelopes(this.runs.get(runId)!.events))
      .messages.filter((m) => m.role === 'assistant')
      .map((m) => String(m.content ?? ''))
      .join('');
  }

  /** The run's folded messages (what a history page holds once it ended). */
  messages(runId: string): readonly RunMessage[] {
    return foldLog(toEnvelopes(this.runs.get(runId)!.events)).messages;
  }

  rename(title: string): void {
    this.title = title;
    this.announce('resumable.history_changed', { reason: 'renamed', title });
  }

  /** `DELETE /threads/{id}`: a running run cancelled, the deletion announced, the thread
   * streams closed, then everything 404s. */
  deleteThread(): void {
    for (const [runId, run] of this.runs) {
      if (run.pending.length === 0) continue;
      run.pending = [
        {
          type: 'RUN_FINISHED',
          threadId: THREAD,
          runId,
          outcome: { type: 'cancelled' },
        } as AGUIEvent,
      ];
      this.step(runId, 1);
    }
    this.announce('resumable.history_changed', { reason: 'deleted' });
    for (const res of this.threadStreams) res.end();
    this.threadStreams.clear();
    this.deleted = true;
  }

  private announce(name: string, value: Record<string, unknown>): void {
    this.threadEvents.push({ type: 'CUSTOM', name, value });
    const frame = encodeFrameJson(
      this.threadEvents.length,
      JSON.stringify(this.threadEvents.at(-1)),
    );
    for (const res of this.threadStreams) res.write(frame);
  }

  private json(res: ServerResponse, status: number, body: unknown): void {
    res.writeHead(status, { 'Content-Type': 'application/json' });
    res.end(JSON.stringify(body));
  }

  private stream(res: ServerResponse, frames: string): void {
    res.writeHead(200, { 'Content-Type': 'text/event-stream', 'Cache-Control': 'no-cache' });
    res.flushHeaders();
    if (frames) res.write(frames);
  }

  private async handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const url = new URL(req.url ?? '/', 'http://x');
    const path = url.pathname.replace(/^\/api/, '');
    const after = url.searchParams.get('after');
    this.requests.push({
      method: req.method ?? 'GET',
      path,
      after: after === null ? null : +after,
    });
    const held = this.holds.get(path);
    if (held) {
      this.holds.delete(path);
      held.arrive();
      await held.gate;
    }
    if (req.headers.authorization !== `Bearer ${TOKEN}`) {
      return this.json(res, 401, { error: { code: 'unauthorized', message: 'token' } });
    }
    const from = Number(after ?? 0);
    const run = /^\/runs\/([^/]+)(\/events)?$/.exec(path);
    if (run) {
      const r = this.runs.get(run[1]!);
      if (!r || this.deleted) {
        return this.json(res, 404, { error: { code: 'run_not_found', message: 'gone' } });
      }
      if (!run[2]) return this.json(res, 200, snapshotOf(foldLog(toEnvelopes(r.events))));
      const frames = r.events
        .slice(from)
        .map((e, i) => encodeFrameJson(from + i + 1, JSON.stringify(e)))
        .join('');
      this.stream(res, frames);
      if (r.events.at(-1)?.type === 'RUN_FINISHED') return void res.end();
      r.streams.add(res);
      res.on('close', () => r.streams.delete(res));
      return;
    }
    if (this.deleted || !path.startsWith(`/threads/${THREAD}`)) {
      return this.json(res, 404, { error: { code: 'thread_not_found', message: 'gone' } });
    }
    const rest = path.slice(`/threads/${THREAD}`.length);
    if (rest === '/messages')
      return this.json(res, 200, { messages: this.history, nextBefore: null });
    if (rest === '/events') {
      const frames = this.threadEvents
        .slice(from)
        .map((e, i) => encodeFrameJson(from + i + 1, JSON.stringify(e)))
        .join('');
      this.stream(res, frames);
      this.threadStreams.add(res);
      res.on('close', () => this.threadStreams.delete(res));
      return;
    }
    const runs = [...this.runs].reverse().map(([runId, r]) => ({
      runId,
      status: r.events.at(-1)?.type === 'RUN_FINISHED' ? 'finished' : 'running',
    }));
    this.json(res, 200, {
      threadId: THREAD,
      title: this.title,
      runs,
      lastOffset: this.threadEvents.length,
    });
  }
}
