/**
 * An answer is checked by the server's rule for `resume` (protocol's `parseResume`) once
 * where it enters (`resolve`/`cancel`, a browser tool's result included) and once per stored
 * answer when the record is read — never again on each record write, nor twice for a
 * browser tool's result. Counted on the real `InterruptSession` and `BrowserToolRunner`
 * against a `node:http` server on 127.0.0.1.
 */

import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { BrowserToolRunner } from '../src/core/interrupts/browser-tools.js';
import { interruptRecordKey } from '../src/core/interrupts/interrupt-record.js';
import { InterruptSession } from '../src/core/interrupts/interrupt-session.js';
import type { BrowserTools } from '../src/core/interrupts/tool-declarations.js';
import { BOUND_MS, hostileServerPerTest, server, stops, threadChat } from './hostile-harness.js';
import { storedChat } from './hostile-server.js';
import { toolInterruptThread } from './records-harness.js';
import { waitFor } from './util.js';

const checks = vi.hoisted(() => ({ count: 0 }));
vi.mock('@resumable/protocol', async (original) => {
  const actual = await original<typeof import('@resumable/protocol')>();
  return {
    ...actual,
    parseResume: (value: unknown) => {
      checks.count++;
      return actual.parseResume(value);
    },
  };
});

hostileServerPerTest();
/** `resume` of each `POST /runs`, in order. */
let resumes: unknown[] = [];
beforeEach(() => {
  checks.count = 0;
  resumes = [];
  server.handler = (hit, req, res) => {
    if (hit.route === 'thread') return toolInterruptThread(res);
    if (hit.route === 'start') resumes.push(JSON.parse((req as { body?: string }).body!).resume);
    return false;
  };
});
afterEach(() => vi.clearAllMocks());

/** Three answers this device gave earlier, all sent: read (and checked) once on load. */
const STORED = ['o1', 'o2', 'o3'].map((id) => ({
  interruptId: id,
  status: 'resolved',
  payload: { approved: true },
  state: 'sent',
  runId: 'run-earlier-0123456789abcdef',
}));

async function toolRun(tools: BrowserTools) {
  const storage = await storedChat({ outbox: [] });
  await storage.update(interruptRecordKey('c'), () => ({
    v: 1,
    key: 'c',
    known: [],
    answers: STORED,
    tools: [],
  }));
  const chat = threadChat(storage);
  const hitl = new InterruptSession(chat, () => {});
  stops.push(hitl.retain());
  const runner = new BrowserToolRunner(hitl, null);
  runner.setTools(tools);
  stops.push(runner.start());
  await waitFor(() => resumes.length === 1 && !chat.getState().outbox.length, 'sent', BOUND_MS);
  const done = async () => {
    const stored = (await storage.get(interruptRecordKey('c'))) as { tools: unknown[] };
    return JSON.stringify(stored.tools) === '[{"interruptId":"i1","state":"done"}]';
  };
  for (let i = 0; i < 100 && !(await done()); i++) await new Promise((r) => setTimeout(r, 10));
  await new Promise((r) => setTimeout(r, 100)); // the record writes that follow
}

describe('each answer is checked once where it enters, and each stored one once on read', () => {
  it("a browser tool's result: 3 stored answers read + 1 answer given = 4 checks, whatever the writes", async () => {
    await toolRun({ search: { execute: () => 'found' } });
    expect(resumes).toEqual([
      [{ interruptId: 'i1', status: 'resolved', payload: { result: 'found' } }],
    ]);
    expect(checks.count).toBe(4);
  });

  it('a result the server would refuse: checked once, refused, then its error answer once (5)', async () => {
    await toolRun({ search: { execute: () => 'x'.repeat(17 * 1024) } });
    expect(resumes).toEqual([
      [
        {
          interruptId: 'i1',
          status: 'resolved',
          payload: { error: 'the result is 17421 bytes of JSON, over the limit of 16384' },
        },
      ],
    ]);
    expect(checks.count).toBe(5);
  });
});
