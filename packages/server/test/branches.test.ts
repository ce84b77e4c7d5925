import { join } from 'node:path';
import { EventType } from '@resumable/protocol';
import Database from 'libsql';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { pageBranch } from '../src/branches/history.js';
import { type Agent, MemoryStore, type RunningServer, SqliteStore } from '../src/index.js';
import { replyTokens } from '../src/testing.js';
import { bearer, postRun, readEvents, STORES, serve, tempDir, types } from './helpers.js';

/** Answers `re <last user text>`; records what each run was given. */
function echoAgent(seen: string[][]): Agent {
  return async function* (input) {
    seen.push(input.messages.map((m) => `${m.id}:${String(m.content ?? '')}`));
    const last = [...input.messages].reverse().find((m) => m.role === 'user');
    const id = `r-${input.runId}`;
    yield { type: EventType.TEXT_MESSAGE_START, messageId: id, role: 'assistant' };
    yield { type: EventType.TEXT_MESSAGE_CONTENT, messageId: id, delta: `re ${last?.content}` };
    yield { type: EventType.TEXT_MESSAGE_END, messageId: id };
  };
}

const user = (id: string, content: string, parentId: string | null) => ({
  id,
  role: 'user',
  content,
  parentId,
});
const answer = (runId: string, content: string, parentId: string) => ({
  id: `r-${runId}`,
  role: 'assistant',
  content,
  parentId,
});

describe.each(STORES)('branches on the $name store', ({ create }) => {
  const dir = tempDir();
  const seen: string[][] = [];
  let server: RunningServer;
  beforeAll(async () => {
    server = await serve(create, dir.path, { agent: echoAgent(seen), log: () => {} });
  });
  afterAll(async () => {
    await server.close();
    dir.cleanup();
  });

  const run = async (body: Record<string, unknown>, token?: string) => {
    const { status, json } = await postRun(server.url, body, token ? bearer(token) : {});
    expect(status).toBe(201);
    await server.manager.waitForRun(json.runId);
    return json;
  };
  const page = async (threadId: string, token: string, query = '') => {
    const response = await fetch(`${server.url}/threads/${threadId}/messages${query}`, {
      headers: bearer(token),
    });
    return { status: response.status, body: await response.json() };
  };

  it('regenerate and edit make branches; a branch pages by position; old runs still resume', async () => {
    seen.length = 0;
    const first = await run({ messages: [{ id: 'u1', role: 'user', content: 'hi' }] });
    const { threadId, token } = first;
    // Regenerate: no new message, the same parent as the answer it replaces.
    const again = await run({ threadId, messages: [], parentMessageId: 'u1' }, token);
    // Edit the first prompt: a new root beside it.
    const edit = await run(
      {
        threadId,
        messages: [{ id: 'u1b', role: 'user', content: 'hello' }],
        parentMessageId: null,
      },
      token,
    );
    // A plain send continues the current branch (the edit's).
    const next = await run(
      { threadId, messages: [{ id: 'u2', role: 'user', content: 'more' }] },
      token,
    );
    expect(seen).toEqual([
      ['u1:hi'],
      ['u1:hi'],
      ['u1b:hello'],
      ['u1b:hello', `r-${edit.runId}:re hello`, 'u2:more'],
    ]);

    const roots = { index: 1, count: 2, siblingIds: ['u1', 'u1b'] };
    expect(await page(threadId, token)).toEqual({
      status: 200,
      body: {
        messages: [
          { ...user('u1b', 'hello', null), branch: roots },
          answer(edit.runId, 're hello', 'u1b'),
          user('u2', 'more', `r-${edit.runId}`),
          answer(next.runId, 're more', 'u2'),
        ],
        nextBefore: null,
      },
    });
    // The branch through the first prompt continues with its newest answer (the regenerated one).
    const answers = { count: 2, siblingIds: [`r-${first.runId}`, `r-${again.runId}`] };
    expect((await page(threadId, token, '?through=u1')).body).toEqual({
      messages: [
        { ...user('u1', 'hi', null), branch: { ...roots, index: 0 } },
        { ...answer(again.runId, 're hi', 'u1'), branch: { ...answers, index: 1 } },
      ],
      nextBefore: null,
    });
    expect((await page(threadId, token, `?through=r-${first.runId}`)).body.messages[1]).toEqual({
      ...answer(first.runId, 're hi', 'u1'),
      branch: { ...answers, index: 0 },
    });
    // Pages of two, newest first: positions 3-4, then 1-2.
    const newest = await page(threadId, token, '?limit=2');
    expect(newest.body.messages.map((m: { id: string }) => m.id)).toEqual([
      'u2',
      `r-${next.runId}`,
    ]);
    expect(newest.body.nextBefore).toBe(3);
    const older = await page(threadId, token, '?limit=2&before=3');
    expect(older.body.messages.map((m: { id: string }) => m.id)).toEqual([
      'u1b',
      `r-${edit.runId}`,
    ]);
    expect(older.body.nextBefore).toBe(null);

    // The replaced answer's run is still readable and resumable from any offset.
    const replay = await readEvents(`${server.url}/runs/${first.runId}/events?after=2`, {
      headers: bearer(token),
    });
    expect(types(replay.frames)).toEqual([
      'TEXT_MESSAGE_CONTENT',
      'TEXT_MESSAGE_END',
      'RUN_FINISHED',
    ]);
    expect(JSON.parse(replay.frames[0]!.json)).toEqual({
      type: 'TEXT_MESSAGE_CONTENT',
      messageId: `r-${first.runId}`,
      delta: 're hi',
    });
  });

  it('an unknown parent or branch message is 404 message_not_found, and nothing is stored', async () => {
    const first = await run({ messages: [{ id: 'u1', role: 'user', content: 'hi' }] });
    const { threadId, token } = first;
    const refused = await postRun(
      server.url,
      { threadId, messages: [{ id: 'u9', role: 'user', content: 'x' }], parentMessageId: 'nope' },
      bearer(token),
    );
    expect(refused).toMatchObject({
      status: 404,
      json: {
        error: { code: 'message_not_found', message: `thread ${threadId} has no message nope` },
      },
    });
    const fresh = await postRun(server.url, { messages: [], parentMessageId: 'u1' });
    expect(fresh.status).toBe(404);
    expect((fresh.json as unknown as { error: { code: string } }).error.code).toBe(
      'message_not_found',
    );
    expect(await page(threadId, token, '?through=nope')).toEqual({
      status: 404,
      body: {
        error: { code: 'message_not_found', message: `thread ${threadId} has no message nope` },
      },
    });
    const history = await page(threadId, token);
    expect(history.body.messages.map((m: { id: string }) => m.id)).toEqual([
      'u1',
      `r-${first.runId}`,
    ]);
    const runs = await fetch(`${server.url}/threads/${threadId}`, { headers: bearer(token) });
    expect((await runs.json()).runs).toHaveLength(1);
  });
});

describe('a SQLite file from before branches', () => {
  it('opens, and its linear history reads as one branch in insertion order', async () => {
    const dir = tempDir();
    const path = join(dir.path, 'old.db');
    const db = new Database(path);
    db.exec(`CREATE TABLE threads (thread_id TEXT PRIMARY KEY, token TEXT NOT NULL,
        created_at INTEGER NOT NULL, next_seq INTEGER NOT NULL DEFAULT 1, first_run_id TEXT);
      CREATE TABLE runs (run_id TEXT PRIMARY KEY, thread_id TEXT NOT NULL, status TEXT NOT NULL,
        created_at INTEGER NOT NULL, ended_at INTEGER, last_offset INTEGER NOT NULL DEFAULT 0,
        events_pruned INTEGER NOT NULL DEFAULT 0, snapshot TEXT, owner TEXT);
      CREATE TABLE messages (thread_id TEXT NOT NULL, seq INTEGER NOT NULL,
        message_id TEXT NOT NULL, run_id TEXT NOT NULL, json TEXT NOT NULL,
        PRIMARY KEY (thread_id, seq), UNIQUE (thread_id, message_id));
      INSERT INTO threads VALUES ('t', 'tok', 1, 4, NULL);
      INSERT INTO runs VALUES ('r', 't', 'finished', 1, 2, 3, 0, NULL, NULL);
      INSERT INTO messages VALUES ('t', 1, 'u1', 'r', '{"id":"u1","role":"user","content":"a"}'),
        ('t', 2, 'a1', 'r', '{"id":"a1","role":"assistant","content":"b"}'),
        ('t', 3, 'u2', 'r', '{"id":"u2","role":"user","content":"c"}');`);
    db.pragma('user_version = 2');
    db.close();
    const store = new SqliteStore({ path });
    try {
      expect((await store.getRun('r'))?.replyTo).toBeUndefined();
      expect(await pageBranch(store, 't', { before: null, limit: 10, through: null })).toEqual({
        messages: [
          { id: 'u1', role: 'user', content: 'a', parentId: null },
          { id: 'a1', role: 'assistant', content: 'b', parentId: 'u1' },
          { id: 'u2', role: 'user', content: 'c', parentId: 'a1' },
        ],
        nextBefore: null,
      });
    } finally {
      await store.close();
      dir.cleanup();
    }
  });
});

describe('the scripted agent on a regenerate', () => {
  it('answers the n-th regenerate with seed + n, so branches differ in text', async () => {
    const dir = tempDir();
    const server = await serve(() => new MemoryStore(), dir.path, { log: () => {} });
    try {
      const script = { forwardedProps: { script: { tokens: 12, tokensPerSecond: 0 } } };
      const first = await postRun(server.url, {
        messages: [{ id: 'u1', role: 'user', content: 'Explain offsets' }],
        ...script,
      });
      await server.manager.waitForRun(first.json.runId);
      const { threadId, token } = first.json;
      const again = await postRun(
        server.url,
        { threadId, messages: [], parentMessageId: 'u1', ...script },
        bearer(token),
      );
      await server.manager.waitForRun(again.json.runId);
      const read = await fetch(`${server.url}/threads/${threadId}/messages`, {
        headers: bearer(token),
      });
      const [, answer] = (await read.json()).messages;
      expect(answer.content).toBe(replyTokens('Explain offsets', 12, 1).join(''));
      expect(answer.content).not.toBe(replyTokens('Explain offsets', 12, 0).join(''));
    } finally {
      await server.close();
      dir.cleanup();
    }
  });
});
