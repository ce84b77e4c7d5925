import { afterEach, describe, expect, it, vi } from 'vitest';
import { MemoryStore, type RunRecord, scriptedAgent } from '../src/index.js';
import { isTerminalJson, RunManager } from '../src/runs/run-manager.js';

describe('isTerminalJson', () => {
  afterEach(() => {
    vi.restoreAllMocks();
  });

  it('answers without parsing when the text cannot be a terminal event', () => {
    const parse = vi.spyOn(JSON, 'parse');
    expect(isTerminalJson('{"type":"TEXT_MESSAGE_CONTENT","messageId":"m1","delta":"hi"}')).toBe(
      false,
    );
    expect(isTerminalJson('{"type":"RUN_STARTED","threadId":"t","runId":"r"}')).toBe(false);
    expect(parse).toHaveBeenCalledTimes(0);
    // Maybe terminal: parsed, and only its `type` decides.
    expect(isTerminalJson('{"type":"RUN_ERROR","message":"x","code":"agent_lost"}')).toBe(true);
    expect(isTerminalJson('{"runId":"r","threadId":"t","type":"RUN_FINISHED"}')).toBe(true);
    expect(isTerminalJson('{"type":"CUSTOM","name":"RUN_FINISHED","value":1}')).toBe(false);
    expect(isTerminalJson('{"type":"RUN_ERROR",')).toBe(false);
    expect(parse).toHaveBeenCalledTimes(4);
  });
});

describe('open streams per run', () => {
  it('are counted per run as streams open and close, and limited per run', async () => {
    const store = new MemoryStore();
    await store.createThread({ threadId: 't', token: 'x', createdAt: 0 });
    const records: RunRecord[] = [];
    for (const runId of ['hot-path-run-0000a', 'hot-path-run-0000b']) {
      await store.createRun({ runId, threadId: 't', createdAt: 0, owner: 'elsewhere' });
      records.push((await store.getRun(runId))!);
    }
    const [a, b] = records as [RunRecord, RunRecord];
    const manager = new RunManager({
      store,
      agent: scriptedAgent(),
      pollMs: 60_000,
      limits: { maxSubscribersPerRun: 3 },
    });
    try {
      const open = async (record: RunRecord) => {
        const opened = await manager.openStream(record, 0);
        if (opened.kind !== 'stream') throw new Error(`expected a stream, got ${opened.kind}`);
        return opened.subscription;
      };
      const onA = [await open(a), await open(a), await open(a)];
      await open(b);
      expect([manager.subscriberCount(a.runId), manager.subscriberCount(b.runId)]).toEqual([3, 1]);
      expect(manager.subscriberCount()).toBe(4);

      const full = await manager.openStream(a, 0);
      expect(full.kind === 'error' && [full.error.code, full.error.message]).toEqual([
        'too_many_requests',
        `run ${a.runId} has 3 open streams, the limit`,
      ]);

      onA[0]!.close(false);
      onA[0]!.close(false); // a second close counts nothing
      expect(manager.subscriberCount(a.runId)).toBe(2);
      await open(a);
      expect(manager.subscriberCount(a.runId)).toBe(3);
      expect(manager.dropConnections(b.runId)).toBe(1);
      expect([manager.subscriberCount(a.runId), manager.subscriberCount(b.runId)]).toEqual([3, 0]);
      expect(manager.subscriberCount('no-such-run')).toBe(0);
    } finally {
      await manager.close();
    }
    expect(manager.subscriberCount()).toBe(0);
    expect(manager.subscriberCount(a.runId)).toBe(0);
  });
});
