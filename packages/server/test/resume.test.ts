import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RunningServer } from '../src/index.js';
import { expectedLog } from './expected.js';
import { bearer, postRun, prompt, readEvents, STORES, serve, tempDir, waitFor } from './helpers.js';

/** 296 deltas + RUN_STARTED, TEXT_MESSAGE_START, TEXT_MESSAGE_END, RUN_FINISHED = 300 events. */
const TOKENS = 296;
const N = 300;

describe.each(STORES)('resume on the $name store', ({ create }) => {
  const dir = tempDir();
  let server: RunningServer;
  let base: string;

  beforeAll(async () => {
    // Hundreds of streams from this one address (127.0.0.1) at once: past the per-address
    // default (100), which abuse/streams-per-client tests.
    server = await serve(create, dir.path, {
      heartbeatMs: 90,
      limits: { maxStreamsPerAddress: 1000 },
    });
    base = server.url;
  });
  afterAll(async () => {
    await server.close();
    dir.cleanup();
  });

  it('a 300-event run cut at every offset resumes with after= and with Last-Event-ID: concatenation equals the log', async () => {
    const { json: run } = await postRun(
      base,
      prompt('three hundred', { tokens: TOKENS, tokensPerSecond: 0 }),
    );
    await server.manager.waitForRun(run.runId);
    const log = expectedLog(run, 'three hundred', TOKENS);
    expect(log).toHaveLength(N);
    const url = `${base}/runs/${run.runId}/events`;
    const headers = bearer(run.token);
    const full = await readEvents(url, { headers });
    expect(full.frames.map((f) => f.json)).toEqual(log);

    const cuts = Array.from({ length: N }, (_, k) => k);
    // Several cuts at a time keep this quick while still one connection per cut and resume.
    for (let i = 0; i < cuts.length; i += 50) {
      await Promise.all(
        cuts.slice(i, i + 50).map(async (k) => {
          const first = k === 0 ? { frames: [] } : await readEvents(url, { headers }, k);
          expect(first.frames).toHaveLength(k);
          const viaAfter = await readEvents(`${url}?after=${k}`, { headers });
          const viaHeader = await readEvents(url, {
            headers: { ...headers, 'Last-Event-ID': String(k) },
          });
          for (const rest of [viaAfter, viaHeader]) {
            const all = [...first.frames, ...rest.frames];
            expect(all.map((f) => f.offset)).toEqual(cuts.map((c) => c + 1));
            expect(all.map((f) => f.json)).toEqual(log);
          }
        }),
      );
    }
    const done = await fetch(`${url}?after=${N}`, { headers });
    expect(done.status).toBe(204);
  });

  it('live streams cut by the server (dropConnections) resume to the exact log', async () => {
    const { json: run } = await postRun(
      base,
      prompt('live cuts', { tokens: TOKENS, tokensPerSecond: 400 }),
    );
    const url = `${base}/runs/${run.runId}/events`;
    const headers = bearer(run.token);
    const got: Array<{ offset: number; json: string }> = [];
    let connections = 0;
    let dropped = 0;
    const cutter = setInterval(() => {
      dropped += server.manager.dropConnections(run.runId);
    }, 60);
    try {
      for (let attempt = 0; attempt < 200; attempt++) {
        const after = got.length === 0 ? 0 : got[got.length - 1]!.offset;
        const read = await readEvents(`${url}?after=${after}`, { headers });
        connections++;
        if (read.status === 204) break;
        expect(read.status).toBe(200);
        got.push(...read.frames);
        const last = read.frames[read.frames.length - 1];
        if (last && JSON.parse(last.json).type === 'RUN_FINISHED') break;
      }
    } finally {
      clearInterval(cutter);
    }
    expect(dropped).toBeGreaterThanOrEqual(3);
    expect(connections).toBeGreaterThanOrEqual(4);
    expect(got.map((f) => f.offset)).toEqual(Array.from({ length: N }, (_, i) => i + 1));
    expect(got.map((f) => f.json)).toEqual(expectedLog(run, 'live cuts', TOKENS));
  });

  it('200 concurrent subscribers joining at different offsets receive identical sequences', async () => {
    const { json: run } = await postRun(
      base,
      prompt('fan out', { tokens: TOKENS, tokensPerSecond: 600 }),
    );
    const log = expectedLog(run, 'fan out', TOKENS);
    const url = `${base}/runs/${run.runId}/events`;
    const headers = bearer(run.token);
    const reads: Array<
      Promise<{ after: number; frames: Array<{ offset: number; json: string }> }>
    > = [];
    for (let i = 0; i < 200; i++) {
      // Join at staggered times, each from an offset at or below what is stored by then.
      if (i % 20 === 0) await new Promise((resolve) => setTimeout(resolve, 25));
      const stored = (await server.store.getRun(run.runId))!.lastOffset;
      const after = (i * 7) % (stored + 1);
      reads.push(
        readEvents(`${url}?after=${after}`, { headers }).then((r) => ({ after, frames: r.frames })),
      );
    }
    const results = await Promise.all(reads);
    const afters = new Set(results.map((r) => r.after));
    expect(afters.size).toBeGreaterThan(20);
    for (const { after, frames } of results) {
      expect(frames.map((f) => f.offset)).toEqual(
        Array.from({ length: N - after }, (_, i) => after + i + 1),
      );
      expect(frames.map((f) => f.json)).toEqual(log.slice(after));
    }
    expect(server.manager.subscriberCount(run.runId)).toBe(0);
  });

  it('sends ": ping" while a live stream is idle, never leaving it silent past heartbeatMs', async () => {
    const { json: run } = await postRun(base, prompt('slow', { tokens: 3, tokensPerSecond: 1 }));
    // Arrival time of every chunk of the body: events a second apart, pings in between.
    const response = await fetch(`${base}/runs/${run.runId}/events`, {
      headers: bearer(run.token),
    });
    expect(response.status).toBe(200);
    const reader = response.body!.getReader();
    const decoder = new TextDecoder();
    let body = '';
    const arrivals = [performance.now()];
    for (;;) {
      const step = await reader.read();
      if (step.done) break;
      arrivals.push(performance.now());
      body += decoder.decode(step.value, { stream: true });
    }
    const gaps = arrivals.slice(1).map((t, i) => t - arrivals[i]!);
    // heartbeatMs is 90 here; pings go out within 75 ms of the last write when timers are
    // on time. The slack is for timer and socket lateness on a busy machine; without pings
    // the gaps would be the events' 1,000 ms, so the bound still fails a silent stream.
    const SLACK_MS = 400;
    expect(Math.max(...gaps)).toBeLessThanOrEqual(90 + SLACK_MS);
    expect(body).toContain(': ping\n\n');
    const frames = body
      .split('\n\n')
      .filter((block) => block.startsWith('id: '))
      .map((block) => block.split('\ndata: ')[1]);
    expect(frames).toEqual(expectedLog(run, 'slow', 3));
  });

  it('a subscriber that stops reading is disconnected past its buffer; the producer never waits', async () => {
    const local = await serve(create, `${dir.path}/slow`, {
      limits: { subscriberBufferEvents: 8 },
    });
    try {
      const { json: run } = await postRun(
        local.url,
        prompt('slow reader', { tokens: 400, tokensPerSecond: 1000 }),
      );
      // In-process: a response body nobody reads is the slowest possible client. It joins
      // while the run is live, so events are pushed to it until its queue passes 8.
      const response = await local.app.fetch(
        new Request(`${local.url}/runs/${run.runId}/events`, { headers: bearer(run.token) }),
      );
      expect(response.status).toBe(200);
      // At least what the stream replayed before going live (read after it answered).
      const joinedAt = (await local.store.getRun(run.runId))!.lastOffset;
      await local.manager.waitForRun(run.runId);
      expect((await local.store.getRun(run.runId))!.lastOffset).toBe(404);
      expect(local.manager.subscriberCount(run.runId)).toBe(0);
      const text = await response.text();
      const offsets = [...text.matchAll(/^id: (\d+)$/gm)].map((m) => Number(m[1]));
      // More than its buffer, and cut off soon after it joined: what was stored by then is
      // replayed first (on a loaded machine the join came near 100 once), then the live
      // push stops within the buffer and the response's own small queue.
      expect(offsets.length).toBeGreaterThan(8);
      expect(offsets.length).toBeLessThan(Math.min(404, joinedAt + 100));
      expect(offsets).toEqual(Array.from({ length: offsets.length }, (_, i) => i + 1));
      // It resumes from where its body ended and gets the rest exactly.
      const rest = await readEvents(
        `${local.url}/runs/${run.runId}/events?after=${offsets.length}`,
        { headers: bearer(run.token) },
      );
      expect(rest.frames.map((f) => f.offset)).toEqual(
        Array.from({ length: 404 - offsets.length }, (_, i) => offsets.length + i + 1),
      );
    } finally {
      await local.close();
    }
  });

  it('answers 410 offset_expired past retention; the snapshot stays, and 204 at the end', async () => {
    const local = await serve(create, `${dir.path}/retention`, { retention: { eventsHours: 0 } });
    try {
      const { json: run } = await postRun(
        local.url,
        prompt('expire', { tokens: 5, tokensPerSecond: 0 }),
      );
      await local.manager.waitForRun(run.runId);
      await new Promise((resolve) => setTimeout(resolve, 5));
      await local.manager.pruneExpiredEvents();
      const headers = bearer(run.token);
      const gone = await fetch(`${local.url}/runs/${run.runId}/events?after=3`, { headers });
      expect(gone.status).toBe(410);
      expect(await gone.json()).toEqual({
        error: {
          code: 'offset_expired',
          message: `the events of run ${run.runId} are no longer retained; fetch GET /runs/${run.runId} and continue from its lastOffset 9`,
        },
      });
      const end = await fetch(`${local.url}/runs/${run.runId}/events?after=9`, { headers });
      expect(end.status).toBe(204);
      const snapshot = (await (
        await fetch(`${local.url}/runs/${run.runId}`, { headers })
      ).json()) as {
        status: string;
        lastOffset: number;
        messages: Array<{ content: string }>;
      };
      expect(snapshot.status).toBe('finished');
      expect(snapshot.lastOffset).toBe(9);
      expect(snapshot.messages).toHaveLength(1);
    } finally {
      await local.close();
    }
  });

  it('answers 429 with Retry-After over the run and subscriber limits', async () => {
    const local = await serve(create, `${dir.path}/limits`, {
      limits: { maxConcurrentRuns: 1, maxSubscribersPerRun: 1 },
    });
    try {
      const { json: run } = await postRun(
        local.url,
        prompt('busy', { tokens: 500, tokensPerSecond: 20 }),
      );
      const second = await postRun(
        local.url,
        prompt('one more', { tokens: 1, tokensPerSecond: 0 }),
      );
      expect(second.status).toBe(429);
      expect(second.headers.get('retry-after')).toBe('1');
      expect(second.json).toEqual({
        error: { code: 'too_many_requests', message: 'this server is producing 1 runs, its limit' },
      });
      const controller = new AbortController();
      const first = await fetch(`${local.url}/runs/${run.runId}/events`, {
        headers: bearer(run.token),
        signal: controller.signal,
      });
      expect(first.status).toBe(200);
      await waitFor(() => local.manager.subscriberCount(run.runId) === 1);
      const extra = await fetch(`${local.url}/runs/${run.runId}/events`, {
        headers: bearer(run.token),
      });
      expect(extra.status).toBe(429);
      expect(extra.headers.get('retry-after')).toBe('1');
      expect(await extra.json()).toEqual({
        error: {
          code: 'too_many_requests',
          message: `run ${run.runId} has 1 open streams, the limit`,
        },
      });
      // A client that goes away frees its slot.
      controller.abort();
      await waitFor(() => local.manager.subscriberCount(run.runId) === 0);
      await fetch(`${local.url}/runs/${run.runId}/cancel`, {
        method: 'POST',
        headers: bearer(run.token),
      });
    } finally {
      await local.close();
    }
  });
});
