// @vitest-environment jsdom
/**
 * The first paint without the engine (issue #16): after a reload `useResumableChat` shows
 * the stored transcript from the persisted records while the engine's `import()` is still
 * pending (held here by an injected loader), the engine then takes over with the same
 * messages; actions called meanwhile are carried out once it loads; a failed load is a
 * typed error with a retry. Real `@resumable/server` on 127.0.0.1, real records.
 */
import { type RunningServer, startServer } from '@resumable/server';
import { act, cleanup, render } from '@testing-library/react';
import type { ReactNode } from 'react';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createManualSignal } from '../src/core/base/env.js';
import type { EngineLoader } from '../src/core/client/client-handle.js';
import { ResumableClient } from '../src/core/client/resumable-client.js';
import type { RecordStorage } from '../src/core/records/storage.js';
import { createMemoryStorage } from '../src/core/records/storage.js';
import {
  type ResumableChatController,
  ResumableProvider,
  type UseResumableChatOptions,
  useResumableChat,
} from '../src/index.js';
import { until } from './react-harness.js';
import { assistantText } from './util.js';

let server: RunningServer;
/** Every request of the reloaded page, `METHOD path`. */
let requests: string[] = [];
/** The run ids the reloaded page's `POST /runs` asked for, with the answer's status. */
let starts: string[] = [];
const recordingFetch: typeof fetch = async (input, init) => {
  const path = String(input).slice(server.url.length).split('?')[0];
  requests.push(`${init?.method ?? 'GET'} ${path}`);
  const response = await fetch(input, init);
  if (path === '/runs' && init?.method === 'POST') {
    starts.push(`${(JSON.parse(String(init.body)) as { runId: string }).runId} ${response.status}`);
  }
  return response;
};
const env = {
  online: createManualSignal(true),
  visible: createManualSignal(true),
  onPageHide: () => () => {},
};
const KEY = 'fp';

beforeEach(async () => {
  server = await startServer({ port: 0, store: 'memory', heartbeatMs: 1000 });
  requests = [];
  starts = [];
});
afterEach(async () => {
  cleanup();
  await server.close();
});

/** An engine loader held until `open()` (or failed by `fail()`); counts its calls. */
function heldEngine() {
  let open!: () => void;
  let fail!: (error: unknown) => void;
  const gate = new Promise<void>((resolve, reject) => {
    open = resolve;
    fail = reject;
  });
  const held = { calls: 0, open, fail, loader: (() => undefined) as unknown as EngineLoader };
  held.loader = async () => {
    held.calls++;
    await gate;
    return import('../src/core/client/engine.js');
  };
  return held;
}

function Probe(props: { options: UseResumableChatOptions; seen: ResumableChatController[] }) {
  const chat = useResumableChat({ key: KEY, ...props.options });
  props.seen.push(chat);
  return null;
}

/** The first page: the engine loaded up front (a client made by the app), records written. */
async function firstPage(
  storage: RecordStorage,
  options: UseResumableChatOptions,
  play: (chat: () => ResumableChatController) => Promise<void>,
): Promise<void> {
  const client = new ResumableClient({
    endpoint: server.url,
    storage,
    env,
    backoff: { initialMs: 10, maxMs: 50 },
    onWarning: () => {},
  });
  const seen: ResumableChatController[] = [];
  const view = render(
    <ResumableProvider endpoint={server.url} client={client}>
      <Probe options={options} seen={seen} />
    </ResumableProvider>,
  );
  await play(() => seen.at(-1)!);
  await client.chatSession(KEY).run.flush();
  view.unmount();
  await client.dispose(); // the page is gone
}

/** The reloaded page: its own provider, the engine behind `loader`. */
function reload(
  storage: RecordStorage,
  options: UseResumableChatOptions,
  loader: EngineLoader,
  extra: { engineTimeoutMs?: number } = {},
) {
  const seen: ResumableChatController[] = [];
  const wrap = (children: ReactNode) => (
    <ResumableProvider
      endpoint={server.url}
      storage={storage}
      env={env}
      fetch={recordingFetch}
      backoff={{ initialMs: 10, maxMs: 50 }}
      onWarning={() => {}}
      loadEngine={loader}
      {...extra}
    >
      {children}
    </ResumableProvider>
  );
  render(wrap(<Probe options={options} seen={seen} />));
  return { seen, chat: () => seen.at(-1)! };
}

const shown = (c: ResumableChatController) =>
  c.messages.map((m) => `${m.id} ${m.role}: ${typeof m.content === 'string' ? m.content : '…'}`);

describe('first paint without the engine', () => {
  it('a reload shows the stored transcript while the engine loads, then the engine shows the same', async () => {
    const storage = createMemoryStorage();
    const options = {
      runInput: { forwardedProps: { script: { tokens: 12, tokensPerSecond: 0 } } },
    };
    let stored: string[] = [];
    await firstPage(storage, options, async (chat) => {
      await act(() => chat().send('tell me about offsets'));
      await until(() => chat().status === 'finished', 'finished');
      stored = shown(chat());
    });
    expect(stored).toHaveLength(2);
    expect(stored[0]).toMatch(/ user: tell me about offsets$/);

    const engine = heldEngine();
    const page = reload(storage, options, engine.loader);
    await until(() => page.chat().hydrated, 'the records read');
    // The engine is still pending: nothing went over the network, yet the transcript is there.
    expect(engine.calls).toBe(1);
    expect(requests).toEqual([]);
    expect(shown(page.chat())).toEqual(stored);
    expect(page.chat().status).toBe('finished');
    expect(page.chat().isStreaming).toBe(false);
    // Before the records were read: nothing (never an empty conversation with hydrated).
    for (const c of page.seen.filter((s) => !s.hydrated)) expect(c.messages).toEqual([]);

    await act(async () => engine.open());
    const threadId = page.chat().threadId!;
    await until(
      () => requests.includes(`GET /threads/${threadId}/messages`),
      'the engine loading history',
    );
    await until(() => !page.chat().isLoadingOlder, 'the history page');
    expect(shown(page.chat())).toEqual(stored);
    // Every frame after the read showed exactly the stored transcript: no jump at the handover.
    for (const c of page.seen.filter((s) => s.hydrated)) expect(shown(c)).toEqual(stored);
  });

  it('send and stop called before the engine loads are carried out once after it loads', async () => {
    const storage = createMemoryStorage();
    const options = {
      runInput: { forwardedProps: { script: { tokens: 400, tokensPerSecond: 40 } } },
    };
    let firstRun = '';
    await firstPage(storage, options, async (chat) => {
      await act(() => chat().send('first'));
      await until(() => assistantText(chat().messages).length > 0, 'text streaming');
      firstRun = chat().runId!;
    });

    const engine = heldEngine();
    const page = reload(storage, options, engine.loader);
    await until(() => page.chat().hydrated, 'the records read');
    // Reloaded mid-answer: the stored partial answer, and Stop (the engine will resume it).
    expect(page.chat().isStreaming).toBe(true);
    expect(assistantText(page.chat().messages).length).toBeGreaterThan(0);
    let sent = false;
    let stopped = false;
    const send = page
      .chat()
      .send('second')
      .then(() => {
        sent = true;
      });
    const stop = page
      .chat()
      .stop()
      .then(() => {
        stopped = true;
      });
    await act(() => new Promise((r) => setTimeout(r, 50)));
    expect([sent, stopped, requests]).toEqual([false, false, []]);

    await act(async () => engine.open());
    await act(() => Promise.all([send, stop]));
    await until(() => page.chat().runId !== firstRun && page.chat().runId !== null, 'second run');
    // One cancel; one run started for the prompt (its POST answered 409 run_in_progress
    // while the cancel was landing, and retried with the same run id: never two runs).
    expect(requests.filter((r) => r === `POST /runs/${firstRun}/cancel`)).toHaveLength(1);
    const second = page.chat().runId!;
    expect(starts.at(-1)).toBe(`${second} 201`);
    expect(new Set(starts)).toEqual(
      new Set([`${second} 409`, `${second} 201`].slice(starts.length > 1 ? 0 : 1)),
    );
    const prompts = page
      .chat()
      .messages.filter((m) => m.role === 'user')
      .map((m) => m.content);
    expect(prompts).toEqual(['first', 'second']);
  });

  it('an interrupt answered before the engine (and the interrupt session) loaded is sent once', async () => {
    const storage = createMemoryStorage();
    const options = {
      runInput: { forwardedProps: { script: { interrupt: 'question', tokensPerSecond: 0 } } },
    };
    let asked = '';
    await firstPage(storage, options, async (chat) => {
      await act(() => chat().send('write the report'));
      await until(() => chat().interrupts.some((i) => i.status === 'open'), 'asked', 10_000);
      // The thread's read may show it open before the run's own events have arrived.
      await until(() => chat().status === 'finished', 'the ask streamed', 10_000);
      asked = chat().interrupts[0]!.id;
    });

    const engine = heldEngine();
    const page = reload(storage, options, engine.loader);
    await until(() => page.chat().hydrated, 'the records read');
    expect(page.chat().interrupts).toEqual([]); // the interrupt session is not there yet
    const answered = page.chat().resolve(asked, { answer: 'Q3 review' });
    await act(async () => engine.open());
    await act(() => answered);
    const text =
      'Before I write the report: What should I call the report?Thanks: I will call the report "Q3 review".';
    await until(() => assistantText(page.chat().messages) === text, 'continuation', 10_000);
    await until(() => page.chat().interrupts[0]?.status === 'resolved', 'resolved');
    expect(requests.filter((r) => r === 'POST /runs')).toHaveLength(1);
  });

  it('an engine that fails to load is a typed error; Retry loads it and a later send goes out', async () => {
    const storage = createMemoryStorage();
    const failing = heldEngine();
    const working = heldEngine();
    working.open();
    let loader = failing.loader;
    const page = reload(storage, {}, () => loader());
    await until(() => page.chat().hydrated, 'the records read');
    const early = page
      .chat()
      .send('hello')
      .catch((error: unknown) => error);
    await act(async () =>
      failing.fail(new TypeError('Failed to fetch dynamically imported module')),
    );
    await until(() => page.chat().error !== null, 'the error');
    expect(page.chat().error).toMatchObject({
      code: 'network',
      message:
        'the chat engine did not load: TypeError: Failed to fetch dynamically imported module',
    });
    // The action waiting for it fails with the same error (loudly, never dropped in silence).
    expect(await early).toBe(page.chat().error);
    expect([page.chat().messages, requests]).toEqual([[], []]);
    // Retry loads it again; then the chat works.
    loader = working.loader;
    await act(async () => page.chat().retry());
    await until(() => page.chat().error === null, 'the engine loaded');
    expect([failing.calls, working.calls]).toEqual([1, 1]);
    await act(() => page.chat().send('hello again'));
    await until(() => page.chat().status === 'finished', 'the reply');
    expect(starts).toEqual([`${page.chat().runId} 201`]);
    expect(page.chat().messages[0]).toMatchObject({ role: 'user', content: 'hello again' });
  });

  it('an engine load that never settles is a timeout error, not a hang', async () => {
    const storage = createMemoryStorage();
    const never: EngineLoader = () => new Promise(() => {});
    const page = reload(storage, {}, never, { engineTimeoutMs: 100 });
    await until(() => page.chat().error !== null, 'the timeout');
    expect(page.chat().error).toMatchObject({
      code: 'timeout',
      message: 'loading the chat engine did not settle within 100 ms',
    });
    expect(page.chat().hydrated).toBe(true);
  });
});
