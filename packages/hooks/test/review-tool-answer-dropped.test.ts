/**
 * Review proof: a browser tool's answer that the refused path drops (`endContinuation`:
 * here after a transient outage reached `no_progress`) leaves the tool's `done` mark in the
 * interrupts' record. The runner skips a `done` tool ("its continuation follows"), so after
 * a reload the interrupt stays open for good: not answered, not re-run, not `interrupted`.
 * Real `ChatSession`, `InterruptSession` and `BrowserToolRunner` against a `node:http`
 * server on 127.0.0.1.
 */

import { beforeEach, describe, expect, it } from 'vitest';
import { BrowserToolRunner } from '../src/core/browser-tools.js';
import { InterruptSession } from '../src/core/interrupt-session.js';
import type { RecordStorage } from '../src/core/storage.js';
import { BOUND_MS, hostileServerPerTest, server, stops, threadChat } from './hostile-harness.js';
import { RUN, storedChat } from './hostile-server.js';
import { waitFor } from './util.js';

hostileServerPerTest();

let down = true;
let resumes: unknown[] = [];
let runs = 0;
beforeEach(() => {
  down = true;
  resumes = [];
  runs = 0;
  server.handler = (hit, req, res) => {
    if (hit.route === 'thread') {
      const interrupts = [
        {
          id: 'i1',
          reason: 'client_tool',
          runId: RUN,
          status: 'open',
          metadata: { toolName: 'search', args: {} },
        },
      ];
      return server.json(res, 200, { threadId: 'th-hostile', runs: [], interrupts });
    }
    if (hit.route !== 'start') return false;
    resumes.push(JSON.parse((req as { body?: string }).body!).resume);
    return down && server.error(res, 503, 'store_unavailable');
  };
});

function page(storage: RecordStorage) {
  const chat = threadChat(storage);
  const hitl = new InterruptSession(chat, () => {});
  stops.push(hitl.retain());
  const runner = new BrowserToolRunner(hitl, null);
  runner.setTools({
    search: {
      execute: async () => {
        runs++;
        return 'found';
      },
    },
  });
  stops.push(runner.start());
  return { chat, hitl };
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
});
