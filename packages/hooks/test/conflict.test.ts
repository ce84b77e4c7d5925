/**
 * #11 on the real server: a prompt sent into a thread whose run another device started is
 * answered `409 run_in_progress` naming that run. The chat follows it to its end, then
 * sends its own prompt, exactly once.
 */
import { type RunningServer, startServer } from '@resumable/server';
import { afterEach, beforeEach, expect, it } from 'vitest';
import { createManualSignal } from '../src/core/base/env.js';
import { ResumableClient } from '../src/core/client/resumable-client.js';
import { createMemoryStorage } from '../src/core/records/storage.js';
import { assistantText, waitFor } from './util.js';

let server: RunningServer;
const clients: ResumableClient[] = [];
beforeEach(async () => {
  server = await startServer({ port: 0, store: 'memory', heartbeatMs: 1000 });
});
afterEach(async () => {
  for (const client of clients.splice(0)) await client.dispose();
  await server.close();
});

const script = (tokens: number, tokensPerSecond: number) => ({
  forwardedProps: { script: { tokens, tokensPerSecond, seed: 7 } },
});

function client(): ResumableClient {
  const c = new ResumableClient({
    endpoint: server.url,
    storage: createMemoryStorage(),
    backoff: { initialMs: 10, maxMs: 100, minMs: 10 },
    onWarning: () => {},
    env: {
      online: createManualSignal(true),
      visible: createManualSignal(true),
      onPageHide: () => () => {},
    },
  });
  clients.push(c);
  return c;
}

it('409 run_in_progress from the real server: the chat follows the running run, then sends once', async () => {
  // Device one starts the thread.
  const one = client().chatSession('one', { runInput: script(5, 500) });
  const releaseOne = one.retain();
  await one.send('first');
  await waitFor(() => one.run.getState().status === 'finished', 'first reply', 10_000);
  const { threadId, token } = one.getState();
  releaseOne();

  // Device two opens the thread while nothing runs, not following its event stream (a
  // follower would join the other run as announced; here only the 409 tells of it)…
  const two = client().chatSession('two', {
    threadId: threadId!,
    token: token!,
    runInput: script(6, 500),
    followThread: false,
  });
  const releaseTwo = two.retain();
  await waitFor(() => two.getState().messages.length === 2, 'history loaded', 10_000);
  const followed: string[] = [];
  two.run.store.subscribe((state) => {
    if (state.runId !== null && followed.at(-1) !== state.runId) followed.push(state.runId);
  });

  // …then device one's next prompt starts a slow run, which device two does not know of.
  const other = await fetch(`${server.url}/runs`, {
    method: 'POST',
    headers: { 'Content-Type': 'application/json', Authorization: `Bearer ${token}` },
    body: JSON.stringify({
      threadId,
      runId: 'run-device-one-second-0123456789',
      messages: [{ id: 'u-other', role: 'user', content: 'meanwhile' }],
      ...script(30, 100),
    }),
  });
  expect(other.status).toBe(201);

  await two.send('second');
  await waitFor(
    () =>
      two.run.getState().runId !== 'run-device-one-second-0123456789' &&
      two.run.getState().status === 'finished' &&
      two.getState().outbox.length === 0,
    'the queued prompt answered',
    15_000,
  );
  const thread = (await (
    await fetch(`${server.url}/threads/${threadId}`, {
      headers: { Authorization: `Bearer ${token}` },
    })
  ).json()) as { runs: { runId: string; status: string }[] };
  // Exactly once: three runs on the thread, all finished.
  expect(thread.runs.map((r) => r.status)).toEqual(['finished', 'finished', 'finished']);
  // Device two followed the other device's run first, then its own (one run id).
  expect(followed).toHaveLength(2);
  expect(followed[0]).toBe('run-device-one-second-0123456789');
  expect(thread.runs.map((r) => r.runId)).toContain(followed[1]);
  // Its transcript: the first exchange, the followed reply, then its prompt and reply.
  const messages = two.getState().messages;
  expect(messages.map((m) => m.role)).toEqual([
    'user',
    'assistant',
    'assistant',
    'user',
    'assistant',
  ]);
  expect(messages[3]?.content).toBe('second');
  expect(assistantText([messages[2]!])).toBe(
    await runText('run-device-one-second-0123456789', token!),
  );
  expect(assistantText([messages[4]!])).toBe(await runText(followed[1]!, token!));
  releaseTwo();
});

async function runText(runId: string, token: string): Promise<string> {
  const response = await fetch(`${server.url}/runs/${runId}`, {
    headers: { Authorization: `Bearer ${token}` },
  });
  const snapshot = (await response.json()) as { messages: { role: string; content?: unknown }[] };
  return assistantText(snapshot.messages);
}
