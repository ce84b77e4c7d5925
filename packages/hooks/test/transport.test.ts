import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { ResumableError } from '@resumable/protocol';
import { encodeFrameJson } from '@resumable/protocol';
import { afterEach, describe, expect, it } from 'vitest';
import type { StreamOutcome } from '../src/core/net/event-stream.js';
import { readEventStream } from '../src/core/net/event-stream.js';

/** A server on 127.0.0.1 that answers every request with `body` in one write. */
async function serveBody(body: string): Promise<{ url: string; server: Server }> {
  const server = createServer((_req, res) => {
    res.writeHead(200, { 'Content-Type': 'text/event-stream' });
    res.end(body);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return { url: `http://127.0.0.1:${port}/events`, server };
}

const frame = (offset: number) =>
  encodeFrameJson(offset, JSON.stringify({ type: 'TEXT_MESSAGE_CONTENT', delta: `d${offset}` }));

let server: Server | null = null;
afterEach(async () => {
  const s = server;
  server = null;
  if (s) await new Promise<void>((resolve) => s.close(() => resolve()));
});

async function read(
  offsets: number[],
  after: number,
): Promise<{ outcome: StreamOutcome; offsets: number[]; warnings: string[] }> {
  const served = await serveBody(offsets.map(frame).join(''));
  server = served.server;
  const delivered: number[] = [];
  const warnings: ResumableError[] = [];
  const outcome = await readEventStream({
    fetch: globalThis.fetch,
    url: served.url,
    after,
    ...plainReadOptions(),
    onBatch: (envelopes) => {
      delivered.push(...envelopes.map((e) => e.offset));
      return true;
    },
    onWarning: (w) => warnings.push(w),
  });
  return { outcome, offsets: delivered, warnings: warnings.map((w) => `${w.code}: ${w.message}`) };
}

describe('readEventStream offsets', () => {
  it('drops a redelivery at or below the resume point silently', async () => {
    // after=4: the server rewound and sends 2..4 again before the new 5..6 (allowed).
    const result = await read([2, 3, 4, 5, 6], 4);
    expect(result.outcome).toEqual({ kind: 'ended' });
    expect(result.offsets).toEqual([5, 6]);
    expect(result.warnings).toEqual([]);
  });

  it('drops a duplicate delivery of the last offset silently', async () => {
    const result = await read([5, 5, 6, 6], 4);
    expect(result.offsets).toEqual([5, 6]);
    expect(result.warnings).toEqual([]);
  });

  it('reports an offset going backwards inside one response, relative to the last seen', async () => {
    // 5 after 7 is above the resume point (4) but a regression within this response.
    const result = await read([5, 6, 7, 5, 8], 4);
    expect(result.offsets).toEqual([5, 6, 7, 8]);
    expect(result.warnings).toEqual(['offset_gap: offset went backwards in one stream: 5 after 7']);
  });

  it('reports a regression even when it falls below the resume point', async () => {
    const result = await read([5, 6, 3, 7], 4);
    expect(result.offsets).toEqual([5, 6, 7]);
    expect(result.warnings).toEqual(['offset_gap: offset went backwards in one stream: 3 after 6']);
  });
});

/** A fetch whose 200 event-stream body yields `chunks` one per read, `gapMs` apart. */
function chunkedFetch(chunks: string[], gapMs: number): typeof fetch {
  return async () => {
    const encoder = new TextEncoder();
    const body = new ReadableStream<Uint8Array>({
      async start(controller) {
        for (const [i, chunk] of chunks.entries()) {
          if (i > 0 && gapMs > 0) await new Promise((r) => setTimeout(r, gapMs));
          controller.enqueue(encoder.encode(chunk));
        }
        controller.close();
      },
    });
    return new Response(body, { status: 200, headers: { 'Content-Type': 'text/event-stream' } });
  };
}

async function batchesOf(fetchFn: typeof fetch): Promise<number[][]> {
  const batches: number[][] = [];
  const outcome = await readEventStream({
    fetch: fetchFn,
    url: 'http://127.0.0.1:1/unused',
    after: 0,
    ...plainReadOptions(),
    onBatch: (envelopes) => {
      batches.push(envelopes.map((e) => e.offset));
      return true;
    },
    onWarning: (w) => {
      throw w;
    },
  });
  expect(outcome).toEqual({ kind: 'ended' });
  return batches;
}

describe('readEventStream batches', () => {
  // Frames 1..9 cut into pieces at odd places (mid-frame, mid-field).
  const text = [1, 2, 3, 4, 5, 6, 7, 8, 9].map(frame).join('');
  const pieces = [0, 17, 101, 150, 260, 333, text.length].map((at, i, all) =>
    text.slice(at, all[i + 1]),
  );
  pieces.pop();

  it('folds reads that arrive before the next macrotask into one batch', async () => {
    expect(pieces.length).toBe(6);
    expect(await batchesOf(chunkedFetch(pieces, 0))).toEqual([[1, 2, 3, 4, 5, 6, 7, 8, 9]]);
  });

  it('delivers reads separated by a macrotask (live events) as they come', async () => {
    const live = [1, 2, 3].map(frame);
    expect(await batchesOf(chunkedFetch(live, 30))).toEqual([[1], [2], [3]]);
  });
});

/** The parts of `readEventStream`'s options these tests never vary: real timers, no stall. */
function plainReadOptions() {
  return {
    headers: {},
    signal: new AbortController().signal,
    stallMs: 0,
    setTimeout: (cb: () => void, ms: number) => setTimeout(cb, ms),
    clearTimeout: (h: unknown) => clearTimeout(h as ReturnType<typeof setTimeout>),
    now: Date.now,
  };
}
