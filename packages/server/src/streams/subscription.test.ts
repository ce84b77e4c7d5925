import { describe, expect, it } from 'vitest';
import { MemoryStore } from '../stores/memory/memory-store.js';
import { Hub, Subscription } from './subscription.js';

describe('Subscription', () => {
  it('ends after a terminal event it read from the store before the hub published it', async () => {
    const store = new MemoryStore();
    await store.createThread({ threadId: 't', token: 'x', createdAt: 0 });
    await store.createRun({ runId: 'r', threadId: 't', createdAt: 0, owner: 'me' });
    const events = [
      { offset: 1, json: '{"type":"RUN_STARTED","threadId":"t","runId":"r"}' },
      { offset: 2, json: '{"type":"RUN_FINISHED","threadId":"t","runId":"r"}' },
    ];
    // Stored, but only the first one published so far (the producer is between the two).
    await store.append('r', events);
    const hub = new Hub('r', 0);
    hub.publish([events[0]!], false);
    let closed = 0;
    const sub = new Subscription({
      store,
      runId: 'r',
      after: 0,
      hub,
      terminalOffset: null,
      bufferEvents: 100,
      pollMs: 10,
      onClose: () => closed++,
    });
    const reader = sub.stream.getReader();
    const first = await reader.read();
    expect(new TextDecoder().decode(first.value)).toBe(
      `id: 1\ndata: ${events[0]!.json}\n\nid: 2\ndata: ${events[1]!.json}\n\n`,
    );
    await new Promise((resolve) => setTimeout(resolve, 20));
    expect(sub.isClosed).toBe(false);
    hub.publish([events[1]!], true);
    expect(await reader.read()).toEqual({ done: true, value: undefined });
    expect(closed).toBe(1);
  });
});
