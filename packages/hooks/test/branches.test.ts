/**
 * Regenerate, edit and switch branches against the real `@resumable/server` (scripted agent,
 * memory store) on 127.0.0.1, with IndexedDB (fake-indexeddb): the exact transcript after
 * each action, the branch shown surviving a reload before any network answer, and an edit
 * made offline going out once, across a reload.
 */
import { messageText } from '@resumable/protocol';
import { type RunningServer, startServer } from '@resumable/server';
import { replyTokens } from '@resumable/server/testing';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createManualSignal, type ManualSignal } from '../src/core/base/env.js';
import type { ChatSession } from '../src/core/chat/chat-session.js';
import { ResumableClient } from '../src/core/client/resumable-client.js';
import { createIndexedDbStorage, type RecordStorage } from '../src/core/records/storage.js';
import { waitFor } from './util.js';

const TOKENS = 16;
const runInput = { forwardedProps: { script: { tokens: TOKENS, tokensPerSecond: 0, seed: 3 } } };
/** The scripted reply: the n-th answer to `prompt` (a regenerate's n ≥ 1) uses seed + n. */
const reply = (prompt: string, n = 0) => replyTokens(prompt, TOKENS, 3 + n).join('');

let server: RunningServer;
let db = 0;
let storage: RecordStorage;
/** Every request the clients made, as `METHOD path?query`. */
let requests: string[];
/** While set, `GET` requests wait for it (the network "has not answered yet"). */
let hold: Promise<void> | null;
const clients: ResumableClient[] = [];

beforeEach(async () => {
  server = await startServer({ port: 0, store: 'memory', heartbeatMs: 1000 });
  storage = createIndexedDbStorage({ dbName: `branches-${db++}` });
  requests = [];
  hold = null;
});
afterEach(async () => {
  for (const c of clients.splice(0)) await c.dispose();
  await server.close();
});

function open(
  online: ManualSignal = createManualSignal(true),
  options: { followThread?: boolean } = {},
): ChatSession {
  const client = new ResumableClient({
    endpoint: server.url,
    storage,
    backoff: { initialMs: 10, maxMs: 50 },
    onWarning: () => {},
    env: {
      online,
      visible: createManualSignal(true),
      onPageHide: () => () => {},
      fetch: async (input, init) => {
        const url = String(input).slice(server.url.length);
        requests.push(`${init?.method ?? 'GET'} ${url}`);
        if ((init?.method ?? 'GET') === 'GET' && hold) await hold;
        return fetch(input, init);
      },
    },
  });
  clients.push(client);
  const chat = client.chatSession('c', { runInput, ...options });
  chat.retain();
  return chat;
}

/** The transcript as [role, text, branch] rows: what a reader sees, ‹ n / m › included. */
function transcript(chat: ChatSession): [string, string, string][] {
  return chat
    .getState()
    .messages.map((m) => [
      m.role,
      messageText(m),
      m.branch ? `${m.branch.index + 1}/${m.branch.count}` : '',
    ]);
}

async function settled(chat: ChatSession, what: string): Promise<void> {
  await waitFor(
    () =>
      chat.getState().outbox.length === 0 &&
      chat.run.getState().status === 'finished' &&
      !chat.getState().isLoadingOlder,
    what,
    10_000,
  );
}

const posts = () => requests.filter((r) => r === 'POST /runs').length;

describe('branches × @resumable/server', () => {
  it('regenerate twice, switch to 1 of 3, reload: the same branch before any network answer', async () => {
    const chat = open();
    const firstRun = await chat.send('explain offsets');
    await settled(chat, 'first answer');
    expect(transcript(chat)).toEqual([
      ['user', 'explain offsets', ''],
      ['assistant', reply('explain offsets'), ''],
    ]);
    const firstAnswer = chat.getState().messages[1]!.id;

    const second = await chat.regenerate();
    await settled(chat, 'second answer');
    expect(transcript(chat)).toEqual([
      ['user', 'explain offsets', ''],
      ['assistant', reply('explain offsets', 1), '2/2'],
    ]);
    expect(reply('explain offsets', 1)).not.toBe(reply('explain offsets'));
    expect(chat.getState().messages[1]!.id).toBe(`msg-${second}`);

    const third = await chat.regenerate();
    await settled(chat, 'third answer');
    expect(chat.getState().messages.map((m) => m.id)).toEqual([
      chat.getState().messages[0]!.id,
      `msg-${third}`,
    ]);
    expect(transcript(chat)[1]!.slice(1)).toEqual([reply('explain offsets', 2), '3/3']);
    expect(chat.getState().messages[1]!.branch!.siblingIds).toEqual([
      firstAnswer,
      `msg-${second}`,
      `msg-${third}`,
    ]);
    // Each regenerate was one POST with no prompt, under the first prompt.
    expect(posts()).toBe(3);
    expect(firstAnswer).toBe(`msg-${firstRun}`);

    await chat.switchBranch(`msg-${third}`, 0);
    await settled(chat, 'branch 1 page');
    expect(transcript(chat)).toEqual([
      ['user', 'explain offsets', ''],
      ['assistant', reply('explain offsets'), '1/3'],
    ]);
    expect(chat.getState().messages[1]!.id).toBe(firstAnswer);
    expect(requests).toContain(
      `GET /threads/${chat.getState().threadId}/messages?limit=50&through=${firstAnswer}`,
    );

    // Reload: a new client on the same IndexedDB, the network held back.
    for (const c of clients.splice(0)) await c.dispose();
    let release!: () => void;
    hold = new Promise((resolve) => {
      release = resolve;
    });
    const reloaded = open();
    await waitFor(() => reloaded.getState().hydrated, 'hydrated', 5000);
    const network = requests.filter((r) => r.startsWith('GET'));
    expect(reloaded.getState().messages.map((m) => m.id)).toEqual([
      chat.getState().messages[0]!.id,
      firstAnswer,
    ]);
    expect(transcript(reloaded)).toEqual([
      ['user', 'explain offsets', ''],
      ['assistant', reply('explain offsets'), '1/3'],
    ]);
    release();
    hold = null;
    await settled(reloaded, 'reloaded page');
    expect(network.length).toBeGreaterThan(0); // they were asked, and held, while it showed
    expect(transcript(reloaded)[1]![2]).toBe('1/3');
    expect(reloaded.getState().messages[1]!.id).toBe(firstAnswer);
  });

  it('edit makes a sibling prompt with its own answer; switching back shows the old pair', async () => {
    const chat = open();
    await chat.send('first question');
    await settled(chat, 'first');
    await chat.send('second question');
    await settled(chat, 'second');
    const secondPrompt = chat.getState().messages[2]!.id;

    await chat.edit(secondPrompt, 'second question, edited');
    await settled(chat, 'edited answer');
    expect(transcript(chat)).toEqual([
      ['user', 'first question', ''],
      ['assistant', reply('first question'), ''],
      ['user', 'second question, edited', '2/2'],
      ['assistant', reply('second question, edited'), ''],
    ]);

    await chat.switchBranch(chat.getState().messages[2]!.id, 0);
    await settled(chat, 'old branch');
    expect(transcript(chat)).toEqual([
      ['user', 'first question', ''],
      ['assistant', reply('first question'), ''],
      ['user', 'second question', '1/2'],
      ['assistant', reply('second question'), ''],
    ]);

    // A prompt sent while the older branch is shown continues that branch.
    await chat.send('third question');
    await settled(chat, 'third');
    expect(transcript(chat)).toEqual([
      ['user', 'first question', ''],
      ['assistant', reply('first question'), ''],
      ['user', 'second question', '1/2'],
      ['assistant', reply('second question'), ''],
      ['user', 'third question', ''],
      ['assistant', reply('third question'), ''],
    ]);
    expect(chat.getState().through).toBe(null);
  });

  it('an edit made offline is kept across a reload and goes out once when back online', async () => {
    const chat = open();
    await chat.send('what is a cursor');
    await settled(chat, 'first');
    const prompt = chat.getState().messages[0]!.id;
    const threadId = chat.getState().threadId!;
    const token = chat.getState().token!;

    const offline = createManualSignal(false);
    for (const c of clients.splice(0)) await c.dispose();
    const away = open(offline);
    await waitFor(() => away.getState().messages.length === 2, 'history', 5000);
    const runId = await away.edit(prompt, 'what is an offset');
    expect(away.getState().outbox.map((o) => [o.runId, o.text, o.parentMessageId])).toEqual([
      [runId, 'what is an offset', null],
    ]);
    expect(transcript(away)).toEqual([['user', 'what is an offset', '2/2']]);
    expect(away.getState().messages[0]!.pending).toBe('queued');

    // Reload while still offline, then the network comes back.
    for (const c of clients.splice(0)) await c.dispose();
    const online = createManualSignal(false);
    const back = open(online);
    await waitFor(() => back.getState().hydrated, 'hydrated', 5000);
    expect(back.getState().outbox.map((o) => o.runId)).toEqual([runId]);
    const before = posts();
    online.set(true);
    await settled(back, 'edit answered');
    expect(posts() - before).toBe(1);
    expect(transcript(back)).toEqual([
      ['user', 'what is an offset', '2/2'],
      ['assistant', reply('what is an offset'), ''],
    ]);
    const thread = (await (
      await fetch(`${server.url}/threads/${threadId}`, {
        headers: { Authorization: `Bearer ${token}` },
      })
    ).json()) as { runs: { runId: string }[] };
    expect(thread.runs.map((r) => r.runId).filter((id) => id === runId)).toHaveLength(1);
    expect(thread.runs).toHaveLength(2);
  });

  it('a regenerate answered 409 run_in_progress follows the running run, then goes out once', async () => {
    // Not following the thread stream, the chat learns of the other device's run only from
    // the 409 (following it, it would join that run as it is announced and never get one).
    const chat = open(createManualSignal(true), { followThread: false });
    await chat.send('explain offsets');
    await settled(chat, 'first');
    const [prompt, answer] = chat.getState().messages.map((m) => m.id);
    const { threadId, token } = chat.getState();
    // Another device starts a slow run on the thread; this chat does not know of it.
    const other = 'run-other-device-0123456789abcdef';
    const started = await fetch(`${server.url}/runs`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json', Authorization: `Bearer ${token}` },
      body: JSON.stringify({
        threadId,
        runId: other,
        messages: [{ id: 'u-other', role: 'user', content: 'meanwhile' }],
        forwardedProps: { script: { tokens: 30, tokensPerSecond: 150, seed: 3 } },
      }),
    });
    expect(started.status).toBe(201);

    const runId = await chat.regenerate(answer);
    await waitFor(
      () => chat.run.getState().runId === runId && chat.run.getState().status === 'finished',
      'the regenerate answered after the other run',
      10_000,
    );
    await settled(chat, 'page');
    // send, the regenerate refused 409 (the other run followed), the same regenerate again.
    expect(posts()).toBe(3);
    expect(transcript(chat)).toEqual([
      ['user', 'explain offsets', ''],
      ['assistant', reply('explain offsets', 1), '2/2'],
    ]);
    expect(chat.getState().messages.map((m) => m.id)).toEqual([prompt, `msg-${runId}`]);
    const thread = (await (
      await fetch(`${server.url}/threads/${threadId}`, {
        headers: { Authorization: `Bearer ${token}` },
      })
    ).json()) as { runs: { runId: string; status: string }[] };
    expect(thread.runs.map((r) => r.runId)).toEqual([runId, other, expect.any(String)]);
    expect(thread.runs.map((r) => r.status)).toEqual(['finished', 'finished', 'finished']);
  });

  it("a second tab on the same key shows the other tab's regenerate as the new branch", async () => {
    const one = open();
    await one.send('explain offsets');
    await settled(one, 'first');
    const two = open();
    await waitFor(() => two.getState().messages.length === 2, 'second tab loaded', 5000);
    const runId = await one.regenerate();
    await waitFor(
      () => two.run.getState().runId === runId && two.run.getState().status === 'finished',
      'second tab followed the regenerate',
      10_000,
    );
    await settled(two, 'second tab page');
    expect(two.getState().messages.map((m) => m.id)).toEqual([
      one.getState().messages[0]!.id,
      `msg-${runId}`,
    ]);
    expect(transcript(two)).toEqual([
      ['user', 'explain offsets', ''],
      ['assistant', reply('explain offsets', 1), '2/2'],
    ]);
  });

  it('an edited prompt keeps the files the original carried', async () => {
    const chat = open();
    await chat.send('hello');
    await settled(chat, 'thread made');
    const { threadId, token } = chat.getState();
    const png = Buffer.from(
      'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg==',
      'base64',
    );
    const uploaded = await fetch(`${server.url}/threads/${threadId}/files?name=dot.png`, {
      method: 'POST',
      headers: { 'Content-Type': 'image/png', Authorization: `Bearer ${token}` },
      body: png,
    });
    expect(uploaded.status).toBe(201);
    const file = (await uploaded.json()) as {
      fileId: string;
      url: string;
      mimeType: string;
      size: number;
      name: string;
    };
    await chat.send('what is this', { attachments: [file] });
    await settled(chat, 'answer with the file');
    await chat.edit(chat.getState().messages[2]!.id, 'describe this');
    await settled(chat, 'edited answer');
    const image = {
      type: 'image',
      source: { type: 'url', value: file.url, mimeType: 'image/png' },
      metadata: { fileId: file.fileId, name: 'dot.png', size: png.length },
    };
    expect(chat.getState().messages[2]!.content).toEqual([
      { type: 'text', text: 'describe this' },
      image,
    ]);
    expect(transcript(chat)[2]).toEqual(['user', 'describe this', '2/2']);
    // As the server stored it: the new prompt on the current branch, with the image.
    const page = (await (
      await fetch(`${server.url}/threads/${threadId}/messages`, {
        headers: { Authorization: `Bearer ${token}` },
      })
    ).json()) as { messages: { role: string; content: unknown }[] };
    expect(page.messages.filter((m) => m.role === 'user').map((m) => m.content)).toEqual([
      'hello',
      [{ type: 'text', text: 'describe this' }, image],
    ]);
  });
});
