/**
 * A stored outbox read while its check (`stored-outbox.ts`, a lazy chunk) fails to load —
 * a chunk lost after a deploy. The record is used as read, but a runId the server would
 * refuse (absent, not a string, too short, or one an earlier item has) never reaches the
 * wire: the item gets a fresh one where the record is read, and goes out once.
 */

import { runIdProblem } from '@resumable/protocol';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import {
  BOUND_MS,
  hostileServerPerTest,
  server,
  shown,
  stops,
  threadChat,
} from './hostile-harness.js';
import { storedChat } from './hostile-server.js';
import { waitFor } from './util.js';

hostileServerPerTest();

beforeEach(() => {
  vi.doMock('../src/core/chat/stored-outbox.js', () => {
    throw new Error('Failed to fetch dynamically imported module');
  });
});
afterEach(() => {
  vi.doUnmock('../src/core/chat/stored-outbox.js');
});

const VALID = 'run-stored-0123456789abcdef';

/** Chat `c` over a stored outbox of `items`; the runIds and texts of its POSTs. */
async function storedOutbox(items: object[]) {
  const posts: { runId: unknown; text: unknown }[] = [];
  server.handler = (hit, req, res) => {
    if (hit.route !== 'start') return false;
    const body = JSON.parse((req as { body?: string }).body ?? '{}') as {
      runId?: unknown;
      messages?: { content?: unknown }[];
    };
    posts.push({ runId: body.runId, text: body.messages?.[0]?.content });
    // As the real server: a runId it refuses is a 400, on every retry.
    return runIdProblem(body.runId) !== null && server.error(res, 400, 'bad_request');
  };
  const chat = threadChat(await storedChat({ outbox: items.map((i) => ({ createdAt: 1, ...i })) }));
  stops.push(chat.retain());
  return { chat, posts };
}

describe('a stored outbox whose check fails to load', () => {
  const cases: [string, unknown][] = [
    ['absent', undefined],
    ['not a string', 5],
    ['too short to be unguessable', 'o1'],
    ['empty', ''],
  ];
  for (const [what, runId] of cases) {
    it(`a runId ${what}: the prompt goes out once under a fresh runId, its text whole`, async () => {
      const { chat, posts } = await storedOutbox([{ runId, text: 'queued while offline' }]);
      await waitFor(() => shown(chat).length === 2, 'prompt and reply', BOUND_MS);
      expect(shown(chat)).toEqual(['user: queued while offline', 'assistant: second']);
      expect(posts.map((p) => [runIdProblem(p.runId), p.text])).toEqual([
        [null, 'queued while offline'],
      ]);
      expect(posts[0]!.runId).not.toBe(runId);
      expect(chat.getState().outbox).toEqual([]);
      expect(chat.getState().error).toBeNull();
      expect(server.count('start')).toBe(1);
    });
  }

  it('two prompts with bad runIds and two under one valid runId: four runs, four distinct runIds', async () => {
    const { chat, posts } = await storedOutbox([
      { text: 'one' },
      { runId: 7, text: 'two' },
      { runId: VALID, text: 'three' },
      { runId: VALID, text: 'four' },
    ]);
    await waitFor(() => shown(chat).length === 8, 'four prompts and replies', BOUND_MS);
    expect(posts.map((p) => p.text)).toEqual(['one', 'two', 'three', 'four']);
    expect(posts.map((p) => runIdProblem(p.runId))).toEqual([null, null, null, null]);
    expect(new Set(posts.map((p) => p.runId)).size).toBe(4);
    // A valid runId is kept (a retried POST stays idempotent); only the repeat is new.
    expect(posts[2]!.runId).toBe(VALID);
    expect(server.count('start')).toBe(4);
    expect(chat.getState().error).toBeNull();
  });
});
