import { type ChildProcess, fork } from 'node:child_process';
import { once } from 'node:events';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { SqliteStore } from '../src/stores/sqlite/sqlite-store.js';
import { expectedLog } from './expected.js';
import { bearer, postRun, prompt, readEvents, tempDir } from './helpers.js';

const main = fileURLToPath(new URL('../src/main.ts', import.meta.url));

interface Child {
  proc: ChildProcess;
  url: string;
}

/** `pnpm server` as a real process (what a crash or a deploy stops). */
async function startChild(dbPath: string): Promise<Child> {
  const proc = fork(main, [], {
    execArgv: ['--conditions=@resumable/source', '--import', 'tsx'],
    env: {
      ...process.env,
      PORT: '0',
      RESUMABLE_STORE: `sqlite:${dbPath}`,
      RESUMABLE_AGENT: 'scripted',
    },
    stdio: ['ignore', 'ignore', 'inherit', 'ipc'],
  });
  const [message] = (await Promise.race([
    once(proc, 'message'),
    once(proc, 'exit').then(() => {
      throw new Error('server exited during start-up');
    }),
  ])) as [{ type: string; url: string }];
  expect(message.type).toBe('ready');
  return { proc, url: message.url };
}

describe('restart on SQLite (real processes)', () => {
  const dir = tempDir();
  const db = join(dir.path, 'data', 'resumable.db');
  const children: ChildProcess[] = [];
  afterAll(() => {
    for (const child of children) if (child.exitCode === null) child.kill('SIGKILL');
    dir.cleanup();
  });

  it('after a crash: stored events resume, the orphan ends agent_lost, a finished tail is served, then 204', async () => {
    const a = await startChild(db);
    children.push(a.proc);
    const done = await postRun(
      a.url,
      prompt('finished before the crash', { tokens: 10, tokensPerSecond: 0 }),
    );
    const orphan = await postRun(
      a.url,
      {
        ...prompt('crash in the middle', { tokens: 1000, tokensPerSecond: 100 }, 'u2'),
        threadId: done.json.threadId,
      },
      bearer(done.json.token),
    );
    expect(orphan.status).toBe(201);
    const headers = bearer(done.json.token);
    // The finished run is complete before the crash.
    const full = await readEvents(`${a.url}/runs/${done.json.runId}/events`, { headers });
    expect(full.frames.map((f) => f.json)).toEqual(
      expectedLog(done.json, 'finished before the crash', 10),
    );
    const seen = await readEvents(`${a.url}/runs/${orphan.json.runId}/events`, { headers }, 10);
    expect(seen.frames.map((f) => f.offset)).toEqual([1, 2, 3, 4, 5, 6, 7, 8, 9, 10]);
    a.proc.kill('SIGKILL');
    await once(a.proc, 'exit');

    const b = await startChild(db);
    children.push(b.proc);
    const log = expectedLog(orphan.json, 'crash in the middle', 1000);
    const rest = await readEvents(`${b.url}/runs/${orphan.json.runId}/events?after=10`, {
      headers,
    });
    expect(rest.status).toBe(200);
    const last = rest.frames[rest.frames.length - 1]!;
    const lastStored = last.offset - 1;
    expect(lastStored).toBeGreaterThanOrEqual(10);
    expect(rest.frames.map((f) => f.offset)).toEqual(
      Array.from({ length: last.offset - 10 }, (_, i) => 11 + i),
    );
    expect(rest.frames.slice(0, -1).map((f) => f.json)).toEqual(log.slice(10, lastStored));
    expect(JSON.parse(last.json)).toEqual({
      type: 'RUN_ERROR',
      message: 'the server running this run stopped before it finished',
      code: 'agent_lost',
    });
    const over = await fetch(`${b.url}/runs/${orphan.json.runId}/events?after=${last.offset}`, {
      headers,
    });
    expect(over.status).toBe(204);

    const tail = await readEvents(`${b.url}/runs/${done.json.runId}/events?after=5`, { headers });
    expect(tail.frames.map((f) => f.json)).toEqual(
      expectedLog(done.json, 'finished before the crash', 10).slice(5),
    );
    expect(
      (await fetch(`${b.url}/runs/${done.json.runId}/events?after=14`, { headers })).status,
    ).toBe(204);

    const status = await (await fetch(`${b.url}/runs/${orphan.json.runId}`, { headers })).json();
    expect(status).toMatchObject({
      status: 'error',
      lastOffset: last.offset,
      error: {
        code: 'agent_lost',
        message: 'the server running this run stopped before it finished',
      },
    });
    const thread = (await (
      await fetch(`${b.url}/threads/${done.json.threadId}`, { headers })
    ).json()) as {
      runs: Array<{ runId: string; status: string }>;
    };
    expect(thread.runs.map((r) => [r.runId, r.status])).toEqual([
      [orphan.json.runId, 'error'],
      [done.json.runId, 'finished'],
    ]);

    // SIGTERM: the open stream ends without a terminal event, the process exits 0.
    const third = await postRun(
      b.url,
      {
        ...prompt('stopped by a deploy', { tokens: 1000, tokensPerSecond: 100 }, 'u3'),
        threadId: done.json.threadId,
      },
      headers,
    );
    const reading = readEvents(`${b.url}/runs/${third.json.runId}/events`, { headers });
    await new Promise((resolve) => setTimeout(resolve, 150));
    b.proc.kill('SIGTERM');
    const [code] = await once(b.proc, 'exit');
    expect(code).toBe(0);
    const cut = await reading;
    expect(cut.status).toBe(200);
    expect(cut.frames.map((f) => f.offset)).toEqual(
      Array.from({ length: cut.frames.length }, (_, i) => i + 1),
    );

    // The database was closed cleanly and holds the whole log, ended by the shutdown.
    const store = new SqliteStore({ path: db });
    try {
      const after = cut.frames.length;
      const stored = await store.readEvents(third.json.runId, after, 10_000);
      const end = stored[stored.length - 1]!;
      expect(JSON.parse(end.json)).toEqual({
        type: 'RUN_ERROR',
        message: 'the server shut down while the run was in progress',
        code: 'agent_lost',
      });
      expect([...cut.frames, ...stored].map((f) => f.offset)).toEqual(
        Array.from({ length: end.offset }, (_, i) => i + 1),
      );
      expect(await store.getRun(third.json.runId)).toMatchObject({
        status: 'error',
        lastOffset: end.offset,
      });
      expect(await store.findOrphanedRuns()).toEqual([]);
    } finally {
      await store.close();
    }
  });
});
