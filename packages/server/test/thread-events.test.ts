import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type RunningServer, SqliteStore, startServer, startServerRun } from '../src/index.js';
import {
  bearer,
  CLUSTER_STORES,
  type Frame,
  postRun,
  prompt,
  readEvents,
  STORES,
  serve,
  tempDir,
  waitFor,
} from './helpers.js';
import { FAST, SLOW } from './http-server.js';

/** `{type:"CUSTOM", name, value}` as the stream carries it (one line of JSON). */
const custom = (name: string, value: unknown) => JSON.stringify({ type: 'CUSTOM', name, value });
/** `parent`: the message the run's prompt hangs under (none for a thread's first prompt). */
const started = (runId: string, text: string, id = 'u1', parent?: string) =>
  custom('resumable.run_started', {
    runId,
    messages: [{ id, role: 'user', content: text }],
    ...(parent === undefined ? {} : { parentMessageId: parent }),
  });
const ended = (runId: string) =>
  custom('resumable.run_ended', { runId, status: 'finished', outcome: { type: 'success' } });

/** Frames and raw text of a stream that does not end by itself, read for `ms`. */
async function readFor(url: string, headers: Record<string, string>, ms: number) {
  const controller = new AbortController();
  const response = await fetch(url, { headers, signal: controller.signal });
  const timer = setTimeout(() => controller.abort(), ms);
  let text = '';
  try {
    const decoder = new TextDecoder();
    const reader = response.body!.getReader();
    for (;;) {
      const step = await reader.read();
      if (step.done) break;
      text += decoder.decode(step.value);
    }
  } catch {
    // aborted: the stream never ends on its own
  } finally {
    clearTimeout(timer);
  }
  const frames = [...text.matchAll(/id: (\d+)\ndata: (.*)\n\n/g)].map((m) => ({
    offset: Number(m[1]),
    json: m[2]!,
  }));
  return { status: response.status, text, frames };
}

const numbered = (jsons: string[], from = 1): Frame[] =>
  jsons.map((json, i) => ({ offset: from + i, json }));

describe.each(CLUSTER_STORES)('thread event stream on the $name store', ({ create }) => {
  const dir = tempDir();
  let server: RunningServer;
  beforeAll(async () => {
    server = await serve(create, dir.path, { heartbeatMs: 90, retention: { threadEvents: 4 } });
  });
  afterAll(async () => {
    await server.close();
    dir.cleanup();
  });
  const head = (threadId: string) => server.manager.threads.head(threadId);

  /** A thread with two finished runs and a history change: five events, four kept. */
  async function thread() {
    const first = await postRun(server.url, prompt('first', FAST));
    expect(first.status).toBe(201);
    const { threadId, token } = first.json;
    await waitFor(async () => (await head(threadId)).last === 2);
    const second = await postRun(
      server.url,
      { ...prompt('second', FAST, 'u2'), threadId },
      bearer(token),
    );
    expect(second.status).toBe(201);
    await waitFor(async () => (await head(threadId)).last === 4);
    expect(
      await server.manager.announce(threadId, 'resumable.history_changed', { reason: 'renamed' }),
    ).toBe(5);
    const log = [
      started(first.json.runId, 'first'),
      ended(first.json.runId),
      // The scripted agent's answer to a run is `msg-<runId>`: the second prompt follows it.
      started(second.json.runId, 'second', 'u2', `msg-${first.json.runId}`),
      ended(second.json.runId),
      custom('resumable.history_changed', { reason: 'renamed' }),
    ];
    return { threadId, token, log, lastRunId: second.json.runId };
  }

  it('resumes at every kept offset with exactly the events after it; 409 past the end, 410 before what is kept', async () => {
    const { threadId, token, log } = await thread();
    const url = `${server.url}/threads/${threadId}/events`;
    const headers = bearer(token);
    expect(await head(threadId)).toEqual({ first: 2, last: 5 });
    for (let after = 1; after <= 4; after++) {
      const read = await readEvents(`${url}?after=${after}`, { headers }, 5 - after);
      expect(read.status).toBe(200);
      expect(read.headers.get('content-type')).toBe('text/event-stream; charset=utf-8');
      expect(read.frames).toEqual(numbered(log.slice(after), after + 1));
    }
    const byHeader = await readEvents(url, { headers: { ...headers, 'Last-Event-ID': '3' } }, 2);
    expect(byHeader.frames).toEqual(numbered(log.slice(3), 4));
    // At the end: the stream stays open, with nothing but heartbeats.
    const idle = await readFor(`${url}?after=5`, headers, 300);
    expect(idle.status).toBe(200);
    expect(idle.frames).toEqual([]);
    expect(idle.text).toMatch(/^(: ping\n\n)+$/);

    const ahead = await fetch(`${url}?after=6`, { headers });
    expect(ahead.status).toBe(409);
    expect(await ahead.json()).toEqual({
      error: { code: 'offset_ahead', message: "after=6 is beyond the thread's last offset 5" },
    });
    // Offset 1 was trimmed (four are kept): from 0 the stream cannot be served.
    const expired = await fetch(url, { headers });
    expect(expired.status).toBe(410);
    expect(await expired.json()).toEqual({
      error: {
        code: 'offset_expired',
        message: `the events of thread ${threadId} after 0 are no longer retained; fetch GET /threads/${threadId} and continue from its lastOffset`,
      },
    });
    const info = await fetch(`${server.url}/threads/${threadId}`, { headers });
    expect((await info.json()).lastOffset).toBe(5);
  });

  it('answers 401, 403, 404, 400 and HEAD 405 like the other thread routes', async () => {
    const { threadId } = await thread();
    const url = `${server.url}/threads/${threadId}/events`;
    const none = await fetch(url);
    expect(none.status).toBe(401);
    expect(await none.json()).toEqual({
      error: {
        code: 'unauthorized',
        message: 'this thread needs its token: Authorization: Bearer <token> (or ?token=)',
      },
    });
    const wrong = await fetch(url, { headers: bearer('not-the-token') });
    expect(wrong.status).toBe(403);
    expect(await wrong.json()).toEqual({
      error: { code: 'forbidden', message: 'this token does not grant access to this thread' },
    });
    const missing = await fetch(`${server.url}/threads/no-such-thread/events`);
    expect(missing.status).toBe(404);
    expect(await missing.json()).toEqual({
      error: { code: 'thread_not_found', message: 'no thread no-such-thread' },
    });
    const head = await fetch(url, { method: 'HEAD' });
    expect(head.status).toBe(405);
    expect(head.headers.get('allow')).toBe('GET');
    const post = await fetch(url, { method: 'POST' });
    expect(post.status).toBe(405);
    expect(server.manager.streamCounts().thread.open).toBe(0);
  });

  it('a connected client sees a run the server starts, announced then ended, live', async () => {
    const { threadId, token, lastRunId } = await thread();
    const headers = bearer(token);
    const opened = server.manager.streamCounts().thread.opened;
    const live = readEvents(`${server.url}/threads/${threadId}/events?after=5`, { headers }, 2);
    await waitFor(() => server.manager.streamCounts().thread.open === 1);
    const { runId } = await startServerRun(server, {
      threadId,
      messages: [{ id: 'job-1', role: 'user' as const, content: 'nightly digest' }],
      forwardedProps: { script: FAST },
    });
    const read = await live;
    expect(read.frames).toEqual(
      numbered([started(runId, 'nightly digest', 'job-1', `msg-${lastRunId}`), ended(runId)], 6),
    );
    expect(server.manager.streamCounts().thread.opened).toBe(opened + 1);
    // What a thread deletion does after its announcement: this thread's streams end.
    const other = await thread();
    const kept = readEvents(
      `${server.url}/threads/${other.threadId}/events?after=5`,
      { headers: bearer(other.token) },
      1,
    );
    const dropped = readEvents(`${server.url}/threads/${threadId}/events?after=7`, { headers });
    await waitFor(() => server.manager.streamCounts().thread.open === 2);
    expect(server.manager.threads.streams.drop(threadId)).toBe(1);
    expect((await dropped).frames).toEqual([]);
    expect(server.manager.streamCounts().thread.open).toBe(1);
    expect(server.manager.threads.streams.drop(other.threadId)).toBe(1);
    expect((await kept).frames).toEqual([]);
    // The run itself reads like any other.
    const events = await readEvents(`${server.url}/runs/${runId}/events`, { headers });
    expect(JSON.parse(events.frames.at(-1)!.json)).toMatchObject({ type: 'RUN_FINISHED', runId });
  });

  it('run_started names the message a regenerate or an edit hangs under; a new root has none', async () => {
    const { threadId, token } = await thread();
    const headers = bearer(token);
    /** Runs `body` on the thread; its run_started (the log keeps only four events). */
    const run = async (body: Record<string, unknown>) => {
      const { last } = await head(threadId);
      const posted = await postRun(server.url, { threadId, ...body }, headers);
      expect(posted.status).toBe(201);
      await waitFor(async () => (await head(threadId)).last === last + 2);
      const [announced] = await server.manager.threads.log.read(threadId, last, 1);
      return { runId: posted.json.runId as string, json: announced!.json };
    };
    const regenerate = await run({
      messages: [],
      parentMessageId: 'u2',
      forwardedProps: { script: FAST },
    });
    expect(regenerate.json).toBe(
      custom('resumable.run_started', {
        runId: regenerate.runId,
        messages: [],
        parentMessageId: 'u2',
      }),
    );
    const edit = await run({ ...prompt('edited', FAST, 'u2b'), parentMessageId: 'u1' });
    expect(edit.json).toBe(started(edit.runId, 'edited', 'u2b', 'u1'));
    const root = await run({ ...prompt('new root', FAST, 'u0'), parentMessageId: null });
    expect(root.json).toBe(started(root.runId, 'new root', 'u0'));
    // A prompt's own run marks are not the server's word: announced without them.
    const marked = await run({
      messages: [{ id: 'u3', role: 'user', content: 'marked', ended: 'stopped', streaming: true }],
      parentMessageId: null,
      forwardedProps: { script: FAST },
    });
    expect(marked.json).toBe(started(marked.runId, 'marked', 'u3'));
  });

  it('startServerRun validates like POST /runs and keeps the thread limits', async () => {
    const { threadId } = await thread();
    const before = await head(threadId);
    const message = [{ id: 'j', role: 'user' as const, content: 'x' }];
    await expect(
      startServerRun(server, { threadId: 'nope', messages: message }),
    ).rejects.toMatchObject({
      code: 'thread_not_found',
      message: 'no thread nope',
    });
    await expect(startServerRun(server, { messages: message } as never)).rejects.toMatchObject({
      code: 'bad_request',
      message: 'threadId is required: a server run joins a thread',
    });
    await expect(
      startServerRun(server, { threadId, messages: 'hi' } as never),
    ).rejects.toMatchObject({
      code: 'bad_request',
      message: 'messages must be an array of AG-UI messages',
    });
    // The POST /runs limit (1 MiB here): the request as JSON, refused before anything is stored.
    const big = [{ id: 'j', role: 'user' as const, content: 'x'.repeat(1024 * 1024) }];
    await expect(startServerRun(server, { threadId, messages: big })).rejects.toMatchObject({
      code: 'payload_too_large',
      message: 'the request body is over the limit of 1048576 bytes',
    });
    const cyclic: Record<string, unknown> = {};
    cyclic.self = cyclic;
    await expect(
      startServerRun(server, { threadId, messages: message, forwardedProps: cyclic }),
    ).rejects.toMatchObject({
      code: 'bad_request',
      message: expect.stringMatching(
        /^the request is not JSON: TypeError: Converting circular structure to JSON/,
      ),
    });
    const image = { type: 'image', source: { type: 'url', value: 'https://evil.example/x.png' } };
    await expect(
      startServerRun(server, {
        threadId,
        messages: [{ id: 'j', role: 'user' as const, content: [image] as never }],
      }),
    ).rejects.toMatchObject({
      code: 'bad_request',
      message:
        'messages[0].content[0].source must be {type:"url", value} with the URL of a file uploaded to this thread',
    });
    await expect(
      startServerRun(server, { threadId, messages: message, parentMessageId: 'no-such' }),
    ).rejects.toMatchObject({ code: 'message_not_found' });
    // None of them stored a run or announced one.
    expect(await head(threadId)).toEqual(before);
    const slow = await startServerRun(server, {
      threadId,
      messages: message,
      forwardedProps: { script: SLOW },
    });
    await expect(
      startServerRun(server, { threadId, messages: message, forwardedProps: { script: FAST } }),
    ).rejects.toMatchObject({ code: 'run_in_progress', runId: slow.runId });
    await server.manager.cancel(slow.runId);
    await server.manager.waitForRun(slow.runId);
    await waitFor(async () => (await head(threadId)).last === 7);
    const kept = await server.manager.threads.log.read(threadId, 6, 10);
    expect(kept.map((e) => e.json)).toEqual([
      custom('resumable.run_ended', {
        runId: slow.runId,
        status: 'cancelled',
        outcome: { type: 'cancelled' },
      }),
    ]);
  });
});

describe('thread event stream heartbeats', () => {
  it('an idle stream gets `: ping` at least every heartbeatMs', async () => {
    const server = await serve(STORES[0]!.create, '', { heartbeatMs: 60 });
    try {
      const first = await postRun(server.url, prompt('hi', FAST));
      const { threadId, token } = first.json;
      await waitFor(async () => (await server.manager.threads.head(threadId)).last === 2);
      const read = await readFor(
        `${server.url}/threads/${threadId}/events?after=2`,
        bearer(token),
        400,
      );
      expect(read.frames).toEqual([]);
      expect(read.text.split(': ping\n\n').length - 1).toBeGreaterThanOrEqual(4);
    } finally {
      await server.close();
    }
  });
});

describe('thread event stream after a crash (SQLite)', () => {
  it('a run the server ends at start-up (agent_lost) is announced after what was stored', async () => {
    const dir = tempDir();
    const path = `${dir.path}/runs.db`;
    try {
      // What a crashed process leaves: a thread, its run_started, the run still `running`.
      const crashed = new SqliteStore({ path });
      await crashed.createThread({ threadId: 'th-crash', token: 'tok', createdAt: 1 });
      await crashed.createRun({
        runId: 'run-crashed-0123456789',
        threadId: 'th-crash',
        createdAt: 1,
        owner: 'dead',
      });
      const first = started('run-crashed-0123456789', 'before the crash');
      expect(await crashed.threadLog.append('th-crash', first, 1000)).toBe(1);
      await crashed.close();

      const server = await startServer({ port: 0, store: new SqliteStore({ path }) });
      try {
        const read = await readEvents(
          `${server.url}/threads/th-crash/events`,
          { headers: bearer('tok') },
          2,
        );
        expect(read.frames).toEqual(
          numbered([
            first,
            custom('resumable.run_ended', {
              runId: 'run-crashed-0123456789',
              status: 'error',
              error: {
                message: 'the server running this run stopped before it finished',
                code: 'agent_lost',
              },
            }),
          ]),
        );
      } finally {
        await server.close();
      }
    } finally {
      dir.cleanup();
    }
  });
});
