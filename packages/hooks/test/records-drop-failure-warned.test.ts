/**
 * A refused continuation's answers leave the interrupts' record (`refused-continuation.ts`);
 * when that write fails, the app hears it (`onWarning`), not a silent catch.
 * Real `ChatSession` and `InterruptSession` against a `node:http` server on 127.0.0.1, over
 * a memory storage whose writes of the interrupts' record fail.
 */

import { ResumableError } from '@resumable/protocol';
import { beforeEach, describe, expect, it } from 'vitest';
import { interruptRecordKey } from '../src/core/interrupts/interrupt-record.js';
import { InterruptSession } from '../src/core/interrupts/interrupt-session.js';
import type { RecordStorage } from '../src/core/records/storage.js';
import {
  BOUND_MS,
  hostileServerPerTest,
  server,
  stops,
  threadChat,
  warnings,
} from './hostile-harness.js';
import { RUN, storedChat, THREAD } from './hostile-server.js';
import { waitFor } from './util.js';

hostileServerPerTest();

beforeEach(() => {
  server.handler = (hit, _req, res) => {
    if (hit.route === 'thread') {
      const interrupts = [{ id: 'i1', reason: 'question', runId: RUN, status: 'open' }];
      return server.json(res, 200, { threadId: THREAD, runs: [], interrupts });
    }
    return hit.route === 'start' && server.error(res, 403, 'forbidden');
  };
});

describe("a refused continuation's answers that cannot be dropped from storage", () => {
  it('the failed write is a warning of the chat', async () => {
    const stored = await storedChat({ outbox: [] });
    const failing: RecordStorage = {
      ...stored,
      get: (key) => stored.get(key),
      delete: (key) => stored.delete(key),
      update: (key, updater) =>
        key === interruptRecordKey('c')
          ? Promise.reject(new ResumableError('storage_unavailable', 'disk full'))
          : stored.update(key, updater),
    };
    const chat = threadChat(failing);
    const hitl = new InterruptSession(chat, () => {}); // its own write failures, not counted
    stops.push(hitl.retain());
    await waitFor(
      () => hitl.getState().server.length > 0 && chat.getState().hydrated,
      'read',
      BOUND_MS,
    );
    await hitl.resolve('i1', { answer: 'mine' });
    await waitFor(() => chat.getState().error?.code === 'forbidden', 'refused', BOUND_MS);
    await waitFor(() => warnings.length > 0, 'warned', BOUND_MS);
    expect(warnings.map((w) => [w.code, w.message])).toEqual([
      ['storage_unavailable', 'disk full'],
    ]);
  });
});
