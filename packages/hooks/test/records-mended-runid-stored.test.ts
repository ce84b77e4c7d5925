/**
 * A stored prompt whose runId the server would refuse gets a new runId where the chat reads
 * its record (`checked-record.ts`, `stored-outbox.ts`), written back to the record before
 * anything is sent. A reload after the server took the POST (the window a stored runId
 * exists to cover), or a second tab reading the same record, sends the same prompt under
 * the same runId (the server's idempotency): never a second run. A stored valid runId
 * goes out again unchanged.
 * Real `ChatSession`s against a `node:http` server on 127.0.0.1, one storage (the reload).
 */

import { beforeEach, describe, expect, it } from 'vitest';
import { BOUND_MS, hostileServerPerTest, server, stops, threadChat } from './hostile-harness.js';
import { storedChat } from './hostile-server.js';
import { waitFor } from './util.js';

hostileServerPerTest();

/** Each `POST /runs`: its runId and the prompt text. */
let posts: { runId: string; text: unknown }[] = [];
beforeEach(() => {
  posts = [];
  server.handler = (hit, req, res) => {
    if (hit.route !== 'start') return false;
    const body = JSON.parse((req as { body?: string }).body!) as {
      runId: string;
      messages: { content: unknown }[];
    };
    posts.push({ runId: body.runId, text: body.messages[0]?.content });
    // The first POST is taken by the server, but the page goes away before its answer.
    return hit.n === 1 && server.hang(res);
  };
});

async function reloadDuringFirstPost(runId: string) {
  const storage = await storedChat({ outbox: [{ runId, text: 'hello', createdAt: 1 }] });
  const first = threadChat(storage);
  const release = first.retain();
  await waitFor(() => posts.length === 1, 'the first POST', BOUND_MS);
  release();
  first.dispose(); // the page goes away
  const second = threadChat(storage); // the reload, on the same stored records
  stops.push(second.retain());
  await waitFor(() => posts.length === 2, 'the reload sends it again', BOUND_MS);
  await waitFor(() => second.getState().outbox.length === 0, 'sent', BOUND_MS);
  return posts.map((p) => p.runId);
}

describe('a stored prompt sent again after a reload in the POST window', () => {
  it('control: a valid stored runId goes out again under the same runId (one run)', async () => {
    const valid = 'run-stored-0123456789abcdef';
    expect(await reloadDuringFirstPost(valid)).toEqual([valid, valid]);
  });

  it('a mended runId: the reload sends the same prompt under the same runId, not a second run', async () => {
    const runIds = await reloadDuringFirstPost('q1'); // too short: the server refuses it
    expect(posts.map((p) => p.text)).toEqual(['hello', 'hello']);
    expect(new Set(runIds).size).toBe(1);
  });

  it("two tabs reading one stored record: the second adopts the first one's mended runId", async () => {
    const storage = await storedChat({ outbox: [{ runId: 'q1', text: 'hello', createdAt: 1 }] });
    stops.push(threadChat(storage).retain(), threadChat(storage).retain());
    await waitFor(() => posts.length === 2, 'both tabs send it', BOUND_MS);
    expect(posts.map((p) => p.text)).toEqual(['hello', 'hello']);
    expect(new Set(posts.map((p) => p.runId)).size).toBe(1);
  });
});
