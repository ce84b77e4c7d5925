// @vitest-environment jsdom
/**
 * useThreads + useTrackThread with a real chat against the real server: the entry learns
 * its thread, token and title from the first prompt, and moves to the top on a new prompt.
 */
import { type RunningServer, startServer } from '@resumable/server';
import { act, cleanup, render } from '@testing-library/react';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { ChatController } from '../src/core/client/controller.js';
import { createMemoryStorage, type RecordStorage } from '../src/core/records/storage.js';
import { localThreadSource, ThreadIndex } from '../src/core/threads/thread-index.js';
import { useResumableChat } from '../src/index.js';
import { useThreads, useTrackThread } from '../src/react/use-threads.js';
import { TestProvider } from './react-harness.js';
import { waitFor } from './util.js';

let server: RunningServer;
let storage: RecordStorage;
beforeEach(async () => {
  server = await startServer({ port: 0, store: 'memory' });
  storage = createMemoryStorage();
});
afterEach(async () => {
  cleanup();
  await server.close();
});

function Tracked(props: { id: string; index: ThreadIndex; onChat: (c: ChatController) => void }) {
  const threads = useThreads({ index: props.index });
  const chat = useResumableChat({ key: props.id });
  useTrackThread(threads, props.id, chat);
  props.onChat(chat);
  return null;
}

describe('useTrackThread', () => {
  it('records the thread, its token, the first prompt as title, and activity', async () => {
    let clock = 0;
    const index = new ThreadIndex(
      localThreadSource({ endpoint: server.url, storage }),
      { now: () => ++clock, randomUUID: () => 'unused' },
      null,
    );
    await index.load();
    await index.touch('older', { title: 'Older conversation' });
    let chat!: ChatController;
    render(
      <TestProvider endpoint={server.url} storage={storage} backoff={{ initialMs: 10, maxMs: 50 }}>
        <Tracked id="k1" index={index} onChat={(c) => (chat = c)} />
      </TestProvider>,
    );
    await act(() => waitFor(() => index.get('k1') !== undefined, 'the entry'));
    expect(index.getState().threads.map((t) => [t.id, t.title, t.threadId])).toEqual([
      ['k1', null, null],
      ['older', 'Older conversation', null],
    ]);
    await act(() => chat.send('Plan a trip\nto Rome in May'));
    await act(() => waitFor(() => index.get('k1')?.token != null, 'thread and token', 10_000));
    const entry = index.get('k1')!;
    expect([entry.threadId, entry.token, entry.title]).toEqual([
      chat.threadId,
      chat.token,
      'Plan a trip',
    ]);
    await act(() => waitFor(() => chat.status === 'finished', 'the reply', 10_000));
    // The other conversation becomes active, then a new prompt here moves k1 back on top.
    await act(() => index.touch('older', { active: true }));
    expect(index.getState().threads.map((t) => t.id)).toEqual(['older', 'k1']);
    await act(() => chat.send('And in June?'));
    await act(() => waitFor(() => index.getState().threads[0]?.id === 'k1', 'k1 on top', 5_000));
    // A later prompt never renames it.
    expect(index.get('k1')!.title).toBe('Plan a trip');
  });
});
