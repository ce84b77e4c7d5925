/**
 * Two interrupts in one run, on the real server with an agent of the test's own: the first
 * answer is kept (persisted, over a reload) and nothing is sent until the second is given;
 * then one continuation carries both.
 */
import type { AGUIEvent, RunAgentInput } from '@resumable/protocol';
import { EventType } from '@resumable/protocol';
import { type RunningServer, startServer } from '@resumable/server';
import { afterEach, beforeEach, expect, it } from 'vitest';
import type { ResumableClient } from '../src/core/client/resumable-client.js';
import { InterruptSession } from '../src/core/interrupts/interrupt-session.js';
import type { RecordStorage } from '../src/core/records/storage.js';
import { createMemoryStorage } from '../src/core/records/storage.js';
import { assistantText, pageClient, waitFor } from './util.js';

/** Asks two questions; a continuation says what it was told. */
async function* twoQuestions(input: RunAgentInput): AsyncGenerator<AGUIEvent> {
  const { runId, threadId } = input;
  const say = (text: string): AGUIEvent[] => [
    { type: EventType.TEXT_MESSAGE_START, messageId: `m-${runId}`, role: 'assistant' },
    { type: EventType.TEXT_MESSAGE_CONTENT, messageId: `m-${runId}`, delta: text },
    { type: EventType.TEXT_MESSAGE_END, messageId: `m-${runId}` },
  ];
  if (input.resume?.length) {
    yield* say(
      input.resume
        .map((r) => `${r.interruptId}=${JSON.stringify(r.payload ?? r.status)}`)
        .join(' '),
    );
    return;
  }
  yield* say('Two questions.');
  const interrupts = [
    { id: `a-${runId}`, reason: 'question', message: 'First?' },
    { id: `b-${runId}`, reason: 'question', message: 'Second?' },
  ];
  yield {
    type: EventType.RUN_FINISHED,
    threadId,
    runId,
    outcome: { type: 'interrupt', interrupts },
  };
}

let server: RunningServer;
let resumes: unknown[] = [];
const clients: ResumableClient[] = [];
const countingFetch: typeof fetch = (input, init) => {
  if (init?.method === 'POST' && String(input).endsWith('/runs')) {
    const body = JSON.parse(String(init.body)) as { resume?: unknown };
    if (body.resume) resumes.push(body.resume);
  }
  return fetch(input, init);
};
beforeEach(async () => {
  server = await startServer({ port: 0, store: 'memory', heartbeatMs: 1000, agent: twoQuestions });
  resumes = [];
});
afterEach(async () => {
  for (const c of clients.splice(0)) await c.dispose();
  await server.close();
});

function open(storage: RecordStorage) {
  const client = pageClient(server.url, storage, { fetch: countingFetch });
  clients.push(client);
  const chat = client.chatSession('two');
  const hitl = new InterruptSession(chat);
  hitl.retain();
  return { client, chat, hitl };
}

it('a partial answer is kept over a reload; one continuation once both are given', async () => {
  const storage = createMemoryStorage();
  const one = open(storage);
  await one.chat.send('ask me');
  await waitFor(() => one.hitl.getState().interrupts.length === 2, 'two questions', 10_000);
  const [a, b] = one.hitl.getState().interrupts.map((i) => i.id);
  await one.hitl.resolve(a!, { answer: 'yes' });
  expect(one.hitl.getState().interrupts.map((i) => [i.status, i.pending])).toEqual([
    ['open', 'draft'],
    ['open', null],
  ]);
  await one.chat.run.flush();
  await one.client.dispose();
  clients.splice(0);

  const two = open(storage);
  await waitFor(() => two.hitl.getState().interrupts[0]?.pending === 'draft', 'draft kept', 10_000);
  expect(resumes).toEqual([]);
  await two.hitl.resolve(b!, { answer: 'no' });
  const text = `Two questions.${a}={"answer":"yes"} ${b}={"answer":"no"}`;
  await waitFor(() => assistantText(two.chat.getState().messages) === text, 'continuation', 10_000);
  expect(resumes).toEqual([
    [
      { interruptId: a, status: 'resolved', payload: { answer: 'yes' } },
      { interruptId: b, status: 'resolved', payload: { answer: 'no' } },
    ],
  ]);
});
