// @vitest-environment jsdom

import { createRunState } from '@resumable/protocol';
import { act, render } from '@testing-library/react';
import type { ProfilerOnRenderCallback } from 'react';
import { memo, Profiler, StrictMode } from 'react';
import { describe, expect, it } from 'vitest';
import { recordOf } from '../src/core/records/record-write.js';
import { runRecordKey } from '../src/core/records/run-record.js';
import { createIndexedDbStorage, createMemoryStorage } from '../src/core/records/storage.js';
import type { ConnectionInfo } from '../src/core/run/connection.js';
import { type ResumableRun, useResumableRun } from '../src/index.js';
import { FakeServer } from './fake-server.js';
import { eventsRequests, fakeServerPerTest, Providers, RUN, server } from './react-fake-server.js';
import { RunProbe, sessionOf } from './react-harness.js';
import { assistantText, waitFor } from './util.js';

/**
 * useResumableRun in a real React tree against the fake server: reload from the persisted
 * offset, a 10,000-event replay in one commit, `connection` without per-batch renders, and
 * StrictMode sharing one session.
 */
fakeServerPerTest();

/** Renders of `StatusLine`: a memoized status component, as a UI would have one. */
const statusRenders = { count: 0 };
const StatusLine = memo(function StatusLine({ connection }: { connection: ConnectionInfo }) {
  statusRenders.count++;
  return <p data-testid="phase">{connection.phase}</p>;
});

function RunWithStatus(props: { onRun: (run: ResumableRun) => void }) {
  const run = useResumableRun({ key: 'slot' });
  props.onRun(run);
  return (
    <>
      <p data-testid="text">{assistantText(run.messages)}</p>
      <StatusLine connection={run.connection} />
    </>
  );
}

/** The whole response body as one chunk: one read, as a replay from a store batch is. */
const oneChunk: typeof fetch = async (input, init) => {
  const response = await fetch(input, init);
  return new Response(await response.arrayBuffer(), {
    status: response.status,
    headers: response.headers,
  });
};

/**
 * The body cut into `pieces` chunks at arbitrary bytes (mid-frame), each its own read, all
 * there before the next macrotask: a replay that crossed the wire in several TCP segments.
 */
const splitInto =
  (pieces: number): typeof fetch =>
  async (input, init) => {
    const response = await fetch(input, init);
    const bytes = new Uint8Array(await response.arrayBuffer());
    const size = Math.ceil(bytes.byteLength / pieces) + 7;
    const body = new ReadableStream<Uint8Array>({
      start(controller) {
        for (let at = 0; at < bytes.byteLength; at += size) {
          controller.enqueue(bytes.slice(at, at + size));
        }
        controller.close();
      },
    });
    return new Response(bytes.byteLength === 0 ? null : body, {
      status: response.status,
      headers: response.headers,
    });
  };

/** Replays a whole 10,000-event run into a fresh tree through `fetchFn`. */
async function replay10k(fetchFn: typeof fetch) {
  const big = await new FakeServer({ tokens: 9996, intervalMs: 0 }).start();
  try {
    big.createRun(RUN, 'th');
    const storage = createMemoryStorage();
    // A record at offset 0: a reload right after the POST, so the whole log replays.
    await storage.update(runRecordKey('slot'), () =>
      recordOf(
        'slot',
        createRunState({ runId: RUN, threadId: 'th' }),
        { runId: RUN, threadId: 'th', token: 'tok-th' },
        0,
      ),
    );
    const commits: string[] = [];
    let run!: ResumableRun;
    const onRender: ProfilerOnRenderCallback = () => commits.push(assistantText(run.messages));
    render(
      <Providers storage={storage} fetch={fetchFn} endpoint={big.url}>
        <Profiler id="run" onRender={onRender}>
          <RunProbe onRun={(r) => (run = r)} />
        </Profiler>
      </Providers>,
    );
    let updates = 0;
    const off = (await sessionOf(() => run)).store.subscribe((s, p) => {
      if (s.run.offset !== p.run.offset) updates++;
    });
    await act(() => waitFor(() => run.status === 'finished', 'finished', 15_000));
    off();
    expect(assistantText(run.messages)).toBe(FakeServer.fullText(9996));
    expect(run.connection.offset).toBe(10_000);
    expect(run.connection.caughtUp).toBe(10_000);
    expect(updates).toBe(1);
    // Every commit shows either nothing or the whole text: the replay committed once.
    const withText = commits.filter((t) => t !== '');
    expect(new Set(withText).size).toBe(1);
    expect(commits.indexOf(withText[0]!)).toBe(commits.length - withText.length);
    expect(withText.length).toBe(1);
  } finally {
    await big.close();
  }
}

describe('useResumableRun', () => {
  it('reload: the new tree shows the snapshot at once and resumes from the persisted offset', async () => {
    const storage = createIndexedDbStorage({ dbName: 'react-reload' });
    server.createRun(RUN, 'th', { paused: true });
    let run!: ResumableRun;
    const first = render(
      <Providers storage={storage}>
        <RunProbe onRun={(r) => (run = r)} />
      </Providers>,
    );
    await act(async () =>
      (await sessionOf(() => run)).attach({ runId: RUN, threadId: 'th', token: 'tok-th' }),
    );
    server.step(RUN, 12);
    await act(() => waitFor(() => run.connection.offset === 12, 'offset 12'));
    await run.session!.flush();
    first.unmount();
    await run.session!.dispose(); // the page is gone
    server.step(RUN, 4);

    let texts: string[] = [];
    let after!: ResumableRun;
    const second = render(
      <Providers storage={storage}>
        <RunProbe
          onRun={(r) => {
            after = r;
            texts.push(assistantText(r.messages));
          }}
        />
      </Providers>,
    );
    await act(async () => (await sessionOf(() => after)).hydrate());
    // Snapshot before any event of the new connection: tokens 0..9 (offsets 3..12).
    expect(texts).toContain(FakeServer.fullText(10));
    expect(eventsRequests(RUN).slice(-1)).toEqual([12]);
    texts = [];
    server.resume(RUN);
    await act(() => waitFor(() => after.status === 'finished', 'finished'));
    expect(second.getByTestId('text').textContent).toBe(server.text(RUN));
    expect(server.text(RUN)).toBe(FakeServer.fullText(20));
  });

  it('a 10,000-event replay is one store update and one commit', async () => {
    await replay10k(oneChunk);
  });

  it('a 10,000-event replay split across reads is still one store update and one commit', async () => {
    let reads = 0;
    const split = splitInto(9);
    const counting: typeof fetch = async (input, init) => {
      const response = await split(input, init);
      if (!response.body) return response;
      const reader = response.body.getReader();
      const body = new ReadableStream<Uint8Array>({
        async pull(controller) {
          const { done, value } = await reader.read();
          if (done) return controller.close();
          reads++;
          controller.enqueue(value);
        },
      });
      return new Response(body, { status: response.status, headers: response.headers });
    };
    await replay10k(counting);
    expect(reads).toBe(9);
  });

  it('a memoized status component given `connection` does not re-render per batch', async () => {
    // React hears of the stores' changes at its next animation frame (react/frame-notify.ts).
    const nextFrame = () => new Promise<void>((resolve) => requestAnimationFrame(() => resolve()));
    server.createRun(RUN, 'th', { paused: true });
    let run!: ResumableRun;
    statusRenders.count = 0;
    const view = render(
      <Providers storage={createMemoryStorage()}>
        <RunWithStatus onRun={(r) => (run = r)} />
      </Providers>,
    );
    await act(async () =>
      (await sessionOf(() => run)).attach({ runId: RUN, threadId: 'th', token: 'tok-th' }),
    );
    await act(() => waitFor(() => run.connection.phase === 'streaming', 'streaming'));
    server.step(RUN, 2);
    await act(() => waitFor(() => run.session!.getState().run.offset === 2, 'offset 2'));
    await act(nextFrame);
    const before = statusRenders.count;
    for (let offset = 3; offset <= 6; offset++) {
      server.step(RUN, 1);
      await act(() => waitFor(() => run.session!.getState().run.offset === offset, `${offset}`));
    }
    await act(nextFrame);
    // The text re-rendered with each batch; the status line did not.
    expect(view.getByTestId('text').textContent).toBe(FakeServer.fullText(4));
    expect(view.getByTestId('phase').textContent).toBe('streaming');
    expect(statusRenders.count).toBe(before);
    expect(run.connection.offset).toBe(6);
  });

  it('StrictMode and two components on one key share one session and one connection', async () => {
    server.createRun(RUN, 'th', { paused: true });
    let a!: ResumableRun;
    let b!: ResumableRun;
    render(
      <StrictMode>
        <Providers storage={createMemoryStorage()}>
          <RunProbe onRun={(r) => (a = r)} />
          <RunProbe onRun={(r) => (b = r)} />
        </Providers>
      </StrictMode>,
    );
    const shared = await sessionOf(() => a);
    expect(b.session).toBe(shared);
    await act(async () =>
      (await sessionOf(() => a)).attach({ runId: RUN, threadId: 'th', token: 'tok-th' }),
    );
    server.resume(RUN);
    await act(() => waitFor(() => a.status === 'finished', 'finished'));
    expect(eventsRequests(RUN)).toEqual([0]);
    expect(assistantText(b.messages)).toBe(FakeServer.fullText(20));
  });
});
