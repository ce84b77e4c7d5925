import { EventType, ResumableError, RUN_ERROR_CODES } from '@resumable/protocol';
import { afterAll, describe, expect, it } from 'vitest';
import { type Agent, type RunningServer, startServer } from '../../src/index.js';
import { bearer, postRun, prompt, readEvents } from '../helpers.js';

/**
 * Review of the server wave (72dbcda..c1cd92e). Each test states what the wave claims or
 * what a real deployment needs, and fails while the defect is there.
 */
const servers: RunningServer[] = [];
const aborts: AbortController[] = [];
afterAll(async () => {
  for (const abort of aborts) abort.abort();
  for (const server of servers) await server.close();
});

async function runErrorOf(agent: Agent): Promise<{ code?: string; message: string }> {
  const server = await startServer({ port: 0, store: 'memory', log: () => {}, agent });
  servers.push(server);
  const { json } = await postRun(server.url, prompt('hi'));
  const read = await readEvents(`${server.url}/runs/${json.runId}/events`, {
    headers: bearer(json.token),
  });
  const last = JSON.parse(read.frames[read.frames.length - 1]!.json);
  expect(last.type).toBe('RUN_ERROR');
  return { code: last.code, message: last.message };
}

describe('protocol.md: "A RUN_ERROR code is always one of this protocol\'s"', () => {
  it('an agent that yields its own RUN_ERROR code: stored as is', async () => {
    // The Agent type is the public extension point; checkEvent does not look at `code`.
    const agent: Agent = async function* () {
      yield { type: EventType.RUN_ERROR, message: 'upstream said no', code: 'thread_not_found' };
    };
    const error = await runErrorOf(agent);
    expect(RUN_ERROR_CODES as readonly string[]).toContain(error.code);
  });

  it('an agent that throws a ResumableError of an HTTP code: that code goes out', async () => {
    const agent: Agent = async function* () {
      yield* [];
      throw new ResumableError('bad_request', 'nope');
    };
    const error = await runErrorOf(agent);
    expect(RUN_ERROR_CODES as readonly string[]).toContain(error.code);
  });
});

describe('maxStreamsPerAddress default (100) and clients that share an address', () => {
  /**
   * 101 different users behind one address: a NAT (office, CGNAT), or every user when the
   * server sits behind a reverse proxy and `clientAddress` is not set (the socket's address
   * is the proxy's). Each follows one thread. Before the wave: 2000 per address.
   */
  it('the 101st user behind one address gets its thread stream', async () => {
    const server = await startServer({ port: 0, store: 'memory', log: () => {} });
    servers.push(server);
    const users = await Promise.all(
      Array.from({ length: 101 }, (_, i) =>
        postRun(server.url, prompt(`user ${i}`, { tokens: 1 })),
      ),
    );
    const statuses: number[] = [];
    for (const { json } of users) {
      const abort = new AbortController();
      aborts.push(abort);
      const response = await fetch(`${server.url}/threads/${json.threadId}/events`, {
        headers: bearer(json.token),
        signal: abort.signal,
      });
      statuses.push(response.status);
    }
    expect(statuses).toEqual(Array(101).fill(200));
  });
});

describe('a RUN_FINISHED outcome no one can answer, from an agent other than the AG-UI proxy (5eed514)', () => {
  /**
   * outcomeProblem is applied in agui.ts only; the manager stores any agent's outcome. An
   * Agent (the public extension point) ending with interrupts:"nope" leaves the run and its
   * thread answering 500, and the next prompt on the thread too.
   */
  it('the run, its thread and a next prompt answer 200/200/201', async () => {
    const agent: Agent = async function* (input) {
      if (input.messages.some((m) => m.id === 'u2')) return;
      yield {
        type: EventType.RUN_FINISHED,
        threadId: input.threadId,
        runId: input.runId,
        outcome: { type: 'interrupt', interrupts: 'nope' },
      } as never;
    };
    const server = await startServer({ port: 0, store: 'memory', log: () => {}, agent });
    servers.push(server);
    const { json } = await postRun(server.url, prompt('hi'));
    await server.manager.waitForRun(json.runId);
    const run = await fetch(`${server.url}/runs/${json.runId}`, { headers: bearer(json.token) });
    const thread = await fetch(`${server.url}/threads/${json.threadId}`, {
      headers: bearer(json.token),
    });
    const next = await postRun(
      server.url,
      { ...prompt('again', undefined, 'u2'), threadId: json.threadId },
      bearer(json.token),
    );
    expect([run.status, thread.status, next.status]).toEqual([200, 200, 201]);
  });
});
