/**
 * A `node:http` server on 127.0.0.1 that misbehaves per test case: each route asks the
 * case's handler first (the n-th request to that route), and falls back to a correct
 * implementation of the protocol for one finished run. The hostile suite drives the real
 * `RunSession` against it.
 */
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { AGUIEvent } from '@resumable/protocol';
import { encodeFrameJson, foldLog, snapshotOf, toEnvelopes } from '@resumable/protocol';
import { chatRecordKey } from '../src/core/chat/chat-record.js';
import { createMemoryStorage, type RecordStorage } from '../src/core/records/storage.js';

export const RUN = 'run-hostile-0123456789';
export const THREAD = 'th-hostile';
export const TOKEN = 'tok-hostile';

export interface Hit {
  method: string;
  /** `events`, `snapshot`, `cancel`, `start`, `thread`, `history` or `other`. */
  route: string;
  after: number;
  at: number;
  /** 1-based count of requests to this route so far. */
  n: number;
}

/** Answers the request itself and returns true, or returns false for the correct answer. */
export type Handler = (hit: Hit, req: IncomingMessage, res: ServerResponse) => boolean;

/** The events of a run streaming `deltas` into message `messageId`, then finishing. */
export function runEvents(deltas: readonly string[], messageId = 'a1', runId = RUN): AGUIEvent[] {
  return [
    { type: 'RUN_STARTED', threadId: THREAD, runId },
    { type: 'TEXT_MESSAGE_START', messageId, role: 'assistant' },
    ...deltas.map((delta) => ({ type: 'TEXT_MESSAGE_CONTENT', messageId, delta })),
    { type: 'TEXT_MESSAGE_END', messageId },
    { type: 'RUN_FINISHED', threadId: THREAD, runId },
  ] as AGUIEvent[];
}

/** A memory storage holding chat `c`'s record of THREAD, with `fields` (the outbox…) in it. */
export async function storedChat(fields: object): Promise<RecordStorage> {
  const storage = createMemoryStorage();
  const record = { v: 1, key: 'c', threadId: THREAD, token: TOKEN, ...fields };
  await storage.update(chatRecordKey('c'), () => record);
  return storage;
}

export const DELTAS = ['Whole ', 'answers, ', 'exactly ', 'once, ', 'never ', 'stuck.'];
export const TEXT = DELTAS.join('');

export class HostileServer {
  url = '';
  readonly hits: Hit[] = [];
  /** The run's log (offsets 1..N). */
  events: AGUIEvent[] = runEvents(DELTAS);
  /** Runs other than RUN, by id (the chat's second prompt). */
  readonly others = new Map<string, AGUIEvent[]>();
  handler: Handler = () => false;
  private readonly counts = new Map<string, number>();
  private readonly open = new Set<ServerResponse>();
  private readonly server = createServer((req, res) => void this.handle(req, res));

  /** Listens on `port` (0: any free one; a closed server's port: it comes back). */
  async start(port = 0): Promise<this> {
    await new Promise<void>((resolve) => this.server.listen(port, '127.0.0.1', resolve));
    this.url = `http://127.0.0.1:${(this.server.address() as AddressInfo).port}/api`;
    return this;
  }

  async close(): Promise<void> {
    for (const res of this.open) res.destroy();
    this.server.closeAllConnections();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }

  count(route: string): number {
    return this.hits.filter((h) => h.route === route).length;
  }

  /** A correct SSE answer: the frames after `after`, then the end of the body. */
  sse(res: ServerResponse, after: number, events = this.events): true {
    res.writeHead(200, { 'Content-Type': 'text/event-stream' });
    let body = '';
    for (let i = after; i < events.length; i++) {
      body += encodeFrameJson(i + 1, JSON.stringify(events[i]));
    }
    res.end(body);
    return true;
  }

  /** A 200 event stream held open (the caller writes to it). */
  hold(res: ServerResponse): ServerResponse {
    res.writeHead(200, { 'Content-Type': 'text/event-stream' });
    res.flushHeaders();
    this.open.add(res);
    res.on('close', () => this.open.delete(res));
    return res;
  }

  /** Never answers (not even headers): a hung request. */
  hang(res: ServerResponse): true {
    this.open.add(res);
    res.on('close', () => this.open.delete(res));
    return true;
  }

  json(res: ServerResponse, status: number, body: unknown, headers = {}): true {
    res.writeHead(status, { 'Content-Type': 'application/json', ...headers });
    res.end(body === undefined ? '' : JSON.stringify(body));
    return true;
  }

  error(res: ServerResponse, status: number, code: string, headers = {}): true {
    return this.json(res, status, { error: { code, message: code } }, headers);
  }

  html(res: ServerResponse, status: number, headers = {}): true {
    res.writeHead(status, { 'Content-Type': 'text/html', ...headers });
    res.end('<html><body><h1>Oops</h1></body></html>');
    return true;
  }

  /** An empty 204. */
  noContent(res: ServerResponse): true {
    res.writeHead(204).end();
    return true;
  }

  /** The run's snapshot after its first `upTo` events (all of them by default). */
  snapshot(upTo = this.events.length): object {
    return snapshotOf(foldLog(toEnvelopes(this.events.slice(0, upTo))));
  }

  private async handle(req: IncomingMessage, res: ServerResponse): Promise<unknown> {
    const url = new URL(req.url ?? '/', 'http://x');
    const path = url.pathname.replace(/^\/api/, '');
    const route =
      req.method === 'POST' && path === '/runs'
        ? 'start'
        : /^\/runs\/[^/]+\/events$/.test(path)
          ? 'events'
          : /^\/runs\/[^/]+\/cancel$/.test(path)
            ? 'cancel'
            : /^\/runs\/[^/]+$/.test(path)
              ? 'snapshot'
              : /^\/threads\/[^/]+\/messages$/.test(path)
                ? 'history'
                : /^\/threads\/[^/]+$/.test(path)
                  ? 'thread'
                  : 'other';
    const n = (this.counts.get(route) ?? 0) + 1;
    this.counts.set(route, n);
    const hit: Hit = {
      method: req.method ?? 'GET',
      route,
      after: Number(url.searchParams.get('after') ?? 0),
      at: Date.now(),
      n,
    };
    this.hits.push(hit);
    let body = '';
    for await (const chunk of req) body += chunk;
    (req as { body?: string }).body = body;
    if (this.handler(hit, req, res) === true) return;
    const runId = decodeURIComponent(path.split('/')[2] ?? '');
    const events = runId === RUN ? this.events : this.others.get(runId);
    switch (route) {
      case 'start': {
        const input = JSON.parse(body || '{}') as { runId?: string; threadId?: string };
        const id = input.runId ?? RUN;
        if (id !== RUN && !this.others.has(id))
          this.others.set(id, runEvents(['second'], `a-${id}`, id));
        return this.json(res, 201, { runId: id, threadId: input.threadId ?? THREAD, token: TOKEN });
      }
      case 'events':
        if (!events) return this.error(res, 404, 'run_not_found');
        if (hit.after >= events.length) return void this.noContent(res);
        return this.sse(res, hit.after, events);
      case 'snapshot':
        if (!events) return this.error(res, 404, 'run_not_found');
        return this.json(res, 200, snapshotOf(foldLog(toEnvelopes(events))));
      case 'cancel':
        return this.json(res, 202, {});
      case 'thread':
        return this.json(res, 200, { threadId: THREAD, runs: [] });
      case 'history':
        return this.json(res, 200, { messages: [], nextBefore: null });
      default:
        return this.error(res, 404, 'not_found');
    }
  }
}
