import { afterEach, describe, expect, it, vi } from 'vitest';
import { MemoryStore, scriptedAgent } from '../src/index.js';
import { RunManager } from '../src/runs/run-manager.js';
import { Subscription } from '../src/streams/subscription.js';

/**
 * The heartbeat's worst case, on fake timers: a stream whose last write came 1 ms after a
 * heartbeat tick. The manager ticks every H/3 and pings a stream idle for H/2, so the gap
 * between two writes stays under H (protocol.md: a ping at least every 15 s) even when a
 * tick is late. (An idle threshold of ⅔·H let that gap reach H - 1 ms on time, and H or
 * more with any lateness.)
 */
describe('heartbeat', () => {
  afterEach(() => {
    vi.useRealTimers();
  });

  it('pings an idle stream H/2 after its last write, at the next tick', async () => {
    vi.useFakeTimers({
      toFake: ['setTimeout', 'clearTimeout', 'setInterval', 'clearInterval', 'Date'],
    });
    const store = new MemoryStore();
    await store.createThread({ threadId: 't', token: 'x', createdAt: 0 });
    await store.createRun({ runId: 'run-heartbeat-01', threadId: 't', createdAt: 0, owner: 'b' });
    const started = '{"type":"RUN_STARTED","threadId":"t","runId":"run-heartbeat-01"}';
    await store.append('run-heartbeat-01', [{ offset: 1, json: started }]);
    // A run produced elsewhere, followed by polling (slow here, so only pings are written).
    const manager = new RunManager({
      store,
      agent: scriptedAgent(),
      heartbeatMs: 90,
      pollMs: 60_000,
    });
    await manager.init();
    const t0 = Date.now(); // ticks at t0 + 30, 60, 90, …
    await vi.advanceTimersByTimeAsync(1);

    const record = (await store.getRun('run-heartbeat-01'))!;
    const open = await manager.openStream(record, 0);
    if (open.kind !== 'stream') throw new Error(`expected a stream, got ${open.kind}`);
    const reader = open.subscription.stream.getReader();
    const decoder = new TextDecoder();
    const chunks: Array<[number, string]> = [];
    const reading = (async () => {
      for (;;) {
        const step = await reader.read();
        if (step.done) return;
        chunks.push([Date.now() - t0, decoder.decode(step.value)]);
      }
    })();
    await vi.advanceTimersByTimeAsync(300);
    await manager.close();
    await reading;

    const ping = ': ping\n\n';
    expect(chunks).toEqual([
      [1, `id: 1\ndata: ${started}\n\n`],
      [60, ping],
      [120, ping],
      [180, ping],
      [240, ping],
      [300, ping],
    ]);
  });

  it('writes one shared `: ping` chunk to every stream instead of encoding it per stream', async () => {
    const store = new MemoryStore();
    await store.createThread({ threadId: 't', token: 'x', createdAt: 0 });
    await store.createRun({ runId: 'run-heartbeat-02', threadId: 't', createdAt: 0, owner: 'b' });
    const subs = [1, 2].map(
      () =>
        new Subscription({
          store,
          runId: 'run-heartbeat-02',
          after: 0,
          hub: null,
          terminalOffset: null,
          bufferEvents: 100,
          pollMs: 60_000,
          onClose: () => {},
        }),
    );
    const readers = subs.map((sub) => sub.stream.getReader());
    for (const sub of subs) sub.ping(Date.now() + 1000, 0);
    const [a, b] = await Promise.all(readers.map((reader) => reader.read()));
    expect(new TextDecoder().decode(a!.value)).toBe(': ping\n\n');
    expect(a!.value).toBe(b!.value);
    for (const sub of subs) sub.close(false);
  });
});
