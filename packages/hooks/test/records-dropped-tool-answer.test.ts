/**
 * A browser tool's answer never leaves its interrupt open for good. Under a transient outage
 * that reaches `no_progress` the answer stays queued (for `retry()`), so after a reload the
 * interrupt is still answered; when the server itself refuses the continuation (a `stop`,
 * here 403), the answer is dropped and the tool's `done` mark goes back to `started`: this
 * page shows the tool `interrupted` (the user re-runs it: run again at once, a refusal
 * would loop), and after a reload an idempotent tool runs again and its answer goes out.
 * Real `ChatSession`, `InterruptSession` and `BrowserToolRunner` against a `node:http`
 * server on 127.0.0.1.
 */

import { beforeEach, describe, expect, it } from 'vitest';
import { BrowserToolRunner } from '../src/core/interrupts/browser-tools.js';
import { interruptRecordKey } from '../src/core/interrupts/interrupt-record.js';
import { InterruptSession } from '../src/core/interrupts/interrupt-session.js';
import type { RecordStorage } from '../src/core/records/storage.js';
import { BOUND_MS, hostileServerPerTest, server, stops, threadChat } from './hostile-harness.js';
import { storedChat } from './hostile-server.js';
import { toolInterruptThread } from './records-harness.js';
import { waitFor } from './util.js';

hostileServerPerTest();

let down = true;
/** How the server answers a continuation while `down`. */
let refusal: [number, string] = [503, 'store_unavailable'];
let resumes: unknown[] = [];
let runs = 0;
beforeEach(() => {
  down = true;
  refusal = [503, 'store_unavailable'];
  resumes = [];
  runs = 0;
  server.handler = (hit, req, res) => {
    if (hit.route === 'thread') return toolInterruptThread(res);
    if (hit.route !== 'start') return false;
    resumes.push(JSON.parse((req as { body?: string }).body!).resume);
    return down && server.error(res, ...refusal);
  };
});

function page(storage: RecordStorage, idempotent = false) {
  const chat = threadChat(storage);
  const hitl = new InterruptSession(chat, () => {});
  stops.push(hitl.retain());
  const runner = new BrowserToolRunner(hitl, null);
  runner.setTools({
    search: {
      idempotent,
      execute: async () => {
        runs++;
        return 'found';
      },
    },
  });
  stops.push(runner.start());
  return { chat, hitl, runner };
}
const view = (hitl: InterruptSession) =>
  hitl.getState().interrupts.map((i) => `${i.id} ${i.status} ${i.pending} ${i.execution}`);

describe("a browser tool's answer dropped by the refused path", () => {
  it('after a reload the tool interrupt is answered (or offered again), not left open for good', async () => {
    const storage = await storedChat({ outbox: [] });
    const first = page(storage);
    await waitFor(() => first.chat.getState().error?.code === 'no_progress', 'given up', BOUND_MS);
    await first.chat.run.flush();
    await new Promise((r) => setTimeout(r, 100)); // the `done` mark's write
    expect(runs).toBe(1);
    for (const stop of stops.splice(0)) stop();

    down = false;
    const sent = resumes.length;
    const second = page(storage); // the reload, the server back
    await waitFor(() => second.hitl.getState().server.length > 0, 'read', BOUND_MS);
    await new Promise((r) => setTimeout(r, 300));
    // Either the tool ran again and its answer went out, or the user is offered to re-run it.
    expect({ view: view(second.hitl), posted: resumes.length - sent }).not.toEqual({
      view: ['i1 open null null'],
      posted: 0,
    });
  });

  it('refused by the server: interrupted here; after a reload an idempotent tool runs again and answers', async () => {
    refusal = [403, 'forbidden'];
    const storage = await storedChat({ outbox: [] });
    const first = page(storage, true);
    await waitFor(() => first.chat.getState().error?.code === 'forbidden', 'refused', BOUND_MS);
    await waitFor(() => view(first.hitl)[0] === 'i1 open null interrupted', 'offered', BOUND_MS);
    await first.chat.run.flush();
    await new Promise((r) => setTimeout(r, 100)); // the record's writes
    const stored = (await storage.get(interruptRecordKey('c'))) as {
      answers: unknown[];
      tools: { interruptId: string; state: string }[];
    };
    expect([stored.answers, stored.tools]).toEqual([[], [{ interruptId: 'i1', state: 'started' }]]);
    expect([runs, resumes.length]).toEqual([1, 1]);
    for (const stop of stops.splice(0)) stop();

    down = false;
    const second = page(storage, true); // the reload, the server back
    await waitFor(() => resumes.length === 2, 'the answer goes out again', BOUND_MS);
    expect(runs).toBe(2);
    expect(resumes[1]).toEqual([
      { interruptId: 'i1', status: 'resolved', payload: { result: 'found' } },
    ]);
    const tools = () => second.hitl.getState().record.tools;
    await waitFor(() => tools()[0]?.state === 'done', 'answered', BOUND_MS);
    expect(tools()).toEqual([{ interruptId: 'i1', state: 'done' }]);
  });
});
