/** Helpers of the human-in-the-loop suites: a thread asked for approval, answers, replies. */
import { expect } from 'vitest';
import type { RunningServer } from '../src/index.js';
import { bearer, logOf, postRun, prompt } from './helpers.js';

export const FAST = { tokens: 5, tokensPerSecond: 0 };
export const APPROVE = { ...FAST, interrupt: 'tool_approval' };

/** A fresh runId, as a client chooses one (≥ 122 random bits). */
export const rid = () => crypto.randomUUID();

/** Starts a thread whose first run asks for approval; resolves once that run ended. */
export async function asked(server: RunningServer) {
  const started = await postRun(server.url, prompt('delete the draft', APPROVE));
  expect(started.status).toBe(201);
  await server.manager.waitForRun(started.json.runId);
  const { runId, threadId, token } = started.json;
  const part = runId.slice(0, 180);
  return { runId, threadId, token, interruptId: `approval-${part}`, toolCallId: `call-${part}` };
}

export function answer(
  server: RunningServer,
  thread: { threadId: string; token: string },
  resume: unknown,
  runId = rid(),
) {
  return postRun(
    server.url,
    { threadId: thread.threadId, runId, messages: [], resume },
    bearer(thread.token),
  );
}

export async function getJson(url: string, token: string) {
  const response = await fetch(url, { headers: bearer(token) });
  expect(response.status).toBe(200);
  return (await response.json()) as Record<string, unknown>;
}

/** The text of a run's assistant messages, joined. */
export async function replyOf(server: RunningServer, runId: string, token: string) {
  const log = await logOf(server, runId, token);
  return log
    .filter((e) => e.type === 'TEXT_MESSAGE_CONTENT')
    .map((e) => e.delta)
    .join('');
}

export const approved = (interruptId: string) => [
  { interruptId, status: 'resolved', payload: { approved: true } },
];

/** The exact `409 interrupt_answered` a losing answer gets, naming the winning run. */
export function expectAnswered(
  res: { status: number; json: unknown },
  interruptId: string,
  runId: string,
): void {
  expect({ status: res.status, body: res.json }).toEqual({
    status: 409,
    body: {
      error: {
        code: 'interrupt_answered',
        message: `interrupt ${interruptId} was already answered by run ${runId}`,
        runId,
      },
    },
  });
}
