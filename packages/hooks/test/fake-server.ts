/**
 * A small, fully scriptable implementation of the Resumable protocol on 127.0.0.1, for the
 * transport and session unit tests: it can cut streams at chosen offsets, answer chosen
 * statuses once, write raw (malformed) frames and go silent. Integration tests against
 * the real `@resumable/server` live in integration.test.ts.
 */

import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { AGUIEvent, RunMessage } from '@resumable/protocol';
import { encodeFrameJson, foldLog, snapshotOf, toEnvelopes } from '@resumable/protocol';

export interface ScriptedRun {
  runId: string;
  threadId: string;
  token: string;
  events: AGUIEvent[];
  /** Events still to be produced, one per tick. */
  pending: AGUIEvent[];
  input: RunMessage[];
  timer: ReturnType<typeof setInterval> | null;
  streams: Set<ServerResponse>;
  createdAt: number;
}

export interface Override {
  status: number;
  body?: unknown;
  headers?: Record<string, string>;
  /** Answer this late (a slow server). Cancel overrides only. */
  delayMs?: number;
}

export interface RequestLog {
  method: string;
  path: string;
  after: number | null;
  auth: string | null;
  /** When the request arrived (Date.now()). */
  at: number;
}

export interface FakeServerOptions {
  /** Tokens per run. @default 20 */
  tokens?: number;
  /** ms between produced events; 0 produces everything at once. @default 5 */
  intervalMs?: number;
  /** Events produced per tick. @default 1 */
  perTick?: number;
  /** Heartbeat period in ms (0: none). @default 0 */
  heartbeatMs?: number;
}

export function tokenText(i: number): string {
  return `tok${i} `;
}

export function scriptEvents(runId: string, threadId: string, tokens: number): AGUIEvent[] {
  const events: AGUIEvent[] = [
    { type: 'RUN_STARTED', threadId, runId } as AGUIEvent,
    { type: 'TEXT_MESSAGE_START', messageId: `a-${runId}`, role: 'assistant' } as AGUIEvent,
  ];
  for (let i = 0; i < tokens; i++) {
    events.push({
      type: 'TEXT_MESSAGE_CONTENT',
      messageId: `a-${runId}`,
      delta: tokenText(i),
    } as AGUIEvent);
  }
  events.push({ type: 'TEXT_MESSAGE_END', messageId: `a-${runId}` } as AGUIEvent);
  events.push({ type: 'RUN_FINISHED', threadId, runId } as AGUIEvent);
  return events;
}

export class FakeServer {
  url = '';
  readonly runs = new Map<string, ScriptedRun>();
  readonly requests: RequestLog[] = [];
  /** Runs started by `POST /runs` wait for `resume`/`step` (exact control of offsets). */
  pauseNew = false;
  /** Answers for the next `POST /runs` requests, in order (then normal service). */
  readonly postOverrides: Override[] = [];
  /** Answer each POST /runs this late (ms): a prompt's sending state outlasts a frame. */
  postDelayMs = 0;
  /** Answers for the next `POST …/cancel` requests, in order (then normal service). */
  readonly cancelOverrides: Override[] = [];
  /** Answers for the next `GET …/events` requests, in order (then normal service). */
  readonly eventOverrides: Override[] = [];
  /** Close every stream once it has sent this offset (then forget the cut). */
  cutAt = new Set<number>();
  /** Send each frame twice (duplicate delivery). */
  duplicate = false;
  /** Stop sending anything (no events, no pings) on open streams: a stalled connection. */
  silent = false;
  /** Redeliver this many already-seen events on the next stream (allowed by the protocol). */
  rewind = 0;
  /** Offsets at or below this are no longer retained: `after` below it answers 410. */
  expiredBelow = 0;
  /** Runs unknown to the server from now on. */
  readonly forgotten = new Set<string>();
  private readonly server = createServer((req, res) => void this.handle(req, res));
  private readonly options: Required<FakeServerOptions>;
  private threadTokens = new Map<string, string>();
  private counter = 0;

  constructor(options: FakeServerOptions = {}) {
    this.options = { tokens: 20, intervalMs: 5, perTick: 1, heartbeatMs: 0, ...options };
  }

  async start(): Promise<this> {
    await new Promise<void>((resolve) => this.server.listen(0, '127.0.0.1', resolve));
    const { port } = this.server.address() as AddressInfo;
    this.url = `http://127.0.0.1:${port}/api`;
    return this;
  }

  async close(): Promise<void> {
    for (const run of this.runs.values()) {
      if (run.timer) clearInterval(run.timer);
      for (const res of run.streams) res.destroy();
    }
    this.server.closeAllConnections();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }

  /** Closes every open event stream (a network drop seen from the server). */
  dropConnections(runId?: string): void {
    for (const run of this.runs.values()) {
      if (runId && run.runId !== runId) continue;
      for (const res of run.streams) res.destroy();
      run.streams.clear();
    }
  }

  /** Writes raw text to every open stream of a run (malformed frames, comments). */
  raw(runId: string, text: string): void {
    for (const res of this.runs.get(runId)?.streams ?? []) res.write(text);
  }

  /** Starts a run directly (a second device's run, a run started elsewhere). */
  createRun(
    runId: string,
    threadId: string,
    options: { tokens?: number; paused?: boolean; input?: RunMessage[] } = {},
  ): ScriptedRun {
    let token = this.threadTokens.get(threadId);
    if (!token) {
      token = `tok-${threadId}`;
      this.threadTokens.set(threadId, token);
    }
    const run: ScriptedRun = {
      runId,
      threadId,
      token,
      events: [],
      pending: scriptEvents(runId, threadId, options.tokens ?? this.options.tokens),
      input: options.input ?? [],
      timer: null,
      streams: new Set(),
      createdAt: this.counter++,
    };
    this.runs.set(runId, run);
    if (!options.paused) this.resume(runId);
    return run;
  }

  /** Produces events (again) after `pause`. */
  resume(runId: string): void {
    const run = this.runs.get(runId)!;
    if (run.timer) return;
    const tick = () => {
      for (let i = 0; i < this.options.perTick && run.pending.length > 0; i++) {
        this.append(run, run.pending.shift()!);
      }
      if (run.pending.length === 0 && run.timer) {
        clearInterval(run.timer);
        run.timer = null;
      }
    };
    if (this.options.intervalMs === 0) {
      while (run.pending.length > 0) this.append(run, run.pending.shift()!);
      return;
    }
    run.timer = setInterval(tick, this.options.intervalMs);
  }

  pause(runId: string): void {
    const run = this.runs.get(runId)!;
    if (run.timer) clearInterval(run.timer);
    run.timer = null;
  }

  /** Produces `n` events now (for paused runs: exact control of offsets). */
  step(runId: string, n = 1): void {
    const run = this.runs.get(runId)!;
    for (let i = 0; i < n && run.pending.length > 0; i++) this.append(run, run.pending.shift()!);
  }

  /** The run's text as `GET /runs/:id` folds it. */
  text(runId: string): string {
    const state = foldLog(toEnvelopes(this.runs.get(runId)!.events));
    return state.messages
      .filter((m) => m.role === 'assistant')
      .map((m) => String(m.content ?? ''))
      .join('');
  }

  /** The text a finished run will have. */
  static fullText(tokens: number): string {
    let text = '';
    for (let i = 0; i < tokens; i++) text += tokenText(i);
    return text;
  }

  private append(run: ScriptedRun, event: AGUIEvent): void {
    const last = run.events[run.events.length - 1];
    if (last && (last.type === 'RUN_FINISHED' || last.type === 'RUN_ERROR')) return;
    run.events.push(event);
    const offset = run.events.length;
    for (const res of run.streams) this.send(res, run, offset);
    if (event.type === 'RUN_FINISHED' || event.type === 'RUN_ERROR') {
      for (const res of run.streams) res.end();
      run.streams.clear();
    }
  }

  private send(res: ServerResponse, run: ScriptedRun, offset: number): void {
    if (this.silent) return;
    const frame = encodeFrameJson(offset, JSON.stringify(run.events[offset - 1]));
    res.write(this.duplicate ? frame + frame : frame);
    if (this.cutAt.has(offset)) {
      // A body that closes before the terminal event: "connection lost" (protocol.md).
      this.cutAt.delete(offset);
      run.streams.delete(res);
      res.end();
    }
  }

  private json(
    res: ServerResponse,
    status: number,
    body: unknown,
    headers: Record<string, string> = {},
  ): void {
    res.writeHead(status, { 'Content-Type': 'application/json', ...headers });
    res.end(body === undefined ? '' : JSON.stringify(body));
  }

  private error(
    res: ServerResponse,
    status: number,
    code: string,
    headers: Record<string, string> = {},
  ): void {
    this.json(res, status, { error: { code, message: code } }, headers);
  }

  private async handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const url = new URL(req.url ?? '/', 'http://x');
    const path = url.pathname.replace(/^\/api/, '');
    const afterText = url.searchParams.get('after');
    this.requests.push({
      method: req.method ?? 'GET',
      path,
      after: afterText === null ? null : Number(afterText),
      auth: req.headers.authorization ?? null,
      at: Date.now(),
    });
    let body = '';
    for await (const chunk of req) body += chunk;

    if (req.method === 'POST' && path === '/runs') {
      if (this.postDelayMs) await new Promise((r) => setTimeout(r, this.postDelayMs));
      const override = this.postOverrides.shift();
      if (override) return this.json(res, override.status, override.body, override.headers);
      const input = JSON.parse(body || '{}') as {
        runId?: string;
        threadId?: string;
        messages?: RunMessage[];
      };
      const runId = input.runId ?? `run-${this.counter}-${Math.random().toString(16).slice(2)}`;
      const existing = this.runs.get(runId);
      if (existing) {
        return this.json(res, 200, { runId, threadId: existing.threadId, token: existing.token });
      }
      const threadId = input.threadId ?? `thread-${this.counter}`;
      const run = this.createRun(runId, threadId, {
        input: input.messages ?? [],
        paused: this.pauseNew,
      });
      return this.json(res, 201, { runId, threadId, token: run.token });
    }

    const runMatch = /^\/runs\/([^/]+)(\/events|\/cancel)?$/.exec(path);
    if (runMatch) {
      const runId = decodeURIComponent(runMatch[1]!);
      const run = this.runs.get(runId);
      if (!run || this.forgotten.has(runId)) return this.error(res, 404, 'run_not_found');
      if (req.headers.authorization !== `Bearer ${run.token}`)
        return this.error(res, 401, 'unauthorized');
      if (runMatch[2] === '/cancel') {
        const override = this.cancelOverrides.shift();
        if (override) {
          if (override.delayMs) await new Promise((r) => setTimeout(r, override.delayMs));
          return this.json(res, override.status, override.body, override.headers);
        }
        run.pending = [];
        this.append(run, {
          type: 'RUN_FINISHED',
          threadId: run.threadId,
          runId,
          outcome: { type: 'cancelled' },
        } as AGUIEvent);
        return this.json(res, 202, {});
      }
      if (runMatch[2] === '/events') {
        const override = this.eventOverrides.shift();
        if (override) {
          if (override.status === 204) {
            res.writeHead(204);
            return void res.end();
          }
          return this.json(res, override.status, override.body, override.headers);
        }
        const requested = Number(afterText ?? req.headers['last-event-id'] ?? 0);
        const after = Math.max(0, requested - this.rewind);
        this.rewind = 0;
        if (requested > run.events.length) return this.error(res, 409, 'offset_ahead');
        if (requested < this.expiredBelow) return this.error(res, 410, 'offset_expired');
        const ended = run.pending.length === 0 && run.timer === null && isOver(run);
        if (ended && requested >= run.events.length) {
          res.writeHead(204);
          return void res.end();
        }
        res.writeHead(200, { 'Content-Type': 'text/event-stream', 'Cache-Control': 'no-cache' });
        res.flushHeaders();
        run.streams.add(res);
        res.on('close', () => run.streams.delete(res));
        // The catch-up in one write, as a real server reading a batch from its store does.
        let catchUp = '';
        for (let offset = after + 1; offset <= run.events.length; offset++) {
          const frame = encodeFrameJson(offset, JSON.stringify(run.events[offset - 1]));
          catchUp += this.duplicate ? frame + frame : frame;
          if (this.cutAt.has(offset)) {
            this.cutAt.delete(offset);
            run.streams.delete(res);
            return void res.end(catchUp);
          }
        }
        if (catchUp && !this.silent) res.write(catchUp);
        if (isOver(run)) {
          run.streams.delete(res);
          return void res.end();
        }
        if (this.options.heartbeatMs > 0) {
          const ping = setInterval(() => {
            if (!this.silent) res.write(': ping\n\n');
          }, this.options.heartbeatMs);
          res.on('close', () => clearInterval(ping));
        }
        return;
      }
      return this.json(res, 200, snapshotOf(foldLog(toEnvelopes(run.events))));
    }

    const threadMatch = /^\/threads\/([^/]+)(\/messages)?$/.exec(path);
    if (threadMatch) {
      const threadId = decodeURIComponent(threadMatch[1]!);
      const runs = [...this.runs.values()]
        .filter((r) => r.threadId === threadId)
        .sort((a, b) => b.createdAt - a.createdAt);
      if (runs.length === 0) return this.error(res, 404, 'thread_not_found');
      if (threadMatch[2]) {
        const all: RunMessage[] = [];
        for (const run of [...runs].reverse()) {
          all.push(...run.input, ...foldLog(toEnvelopes(run.events)).messages);
        }
        const before = url.searchParams.get('before');
        const limit = Number(url.searchParams.get('limit') ?? 50);
        const end = before === null ? all.length : Number(before);
        const start = Math.max(0, end - limit);
        return this.json(res, 200, {
          messages: all.slice(start, end),
          nextBefore: start > 0 ? String(start) : null,
        });
      }
      return this.json(res, 200, {
        threadId,
        runs: runs.map((r) => ({
          runId: r.runId,
          status: isOver(r) ? foldLog(toEnvelopes(r.events)).status : 'running',
        })),
      });
    }
    this.error(res, 404, 'bad_request');
  }
}

function isOver(run: ScriptedRun): boolean {
  const last = run.events[run.events.length - 1];
  return last !== undefined && (last.type === 'RUN_FINISHED' || last.type === 'RUN_ERROR');
}
