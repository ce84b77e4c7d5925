/**
 * The linearity bench's series (`linearity.bench.ts`): the fold over each log, and the
 * floors that keep one message per id without any fold. Shared by the in-process `batched`
 * figures and the one-series processes of `settled` (`linearity-settled.ts`).
 */
import type { Envelope, RunMessage } from '@resumable/protocol';
import { foldLog, IdIndex } from '@resumable/protocol';
import { BatchMessages } from '../../packages/protocol/src/batch-messages.js';
import type { Ids } from './linearity-logs.js';
import { decodeLog, linearityTexts } from './linearity-logs.js';

export type Series = 'unknown' | 'one' | 'floor' | 'floorOneMap' | 'objectsOnly';
export const SERIES: readonly Series[] = ['unknown', 'one', 'floor', 'floorOneMap', 'objectsOnly'];

const message = (id: string, delta: string) =>
  ({ id, role: 'assistant', content: delta, streaming: true }) as RunMessage;
/** Each event's id and delta, as the floors read them from the decoded log. */
const content = (e: Envelope) => e.event as { messageId: string; delta: string };

export function logs(n: number, ids: Ids) {
  // The SSE data texts; every call gets its own decoded copy (`decodeLog`).
  const { unknown, one } = linearityTexts(n, ids);
  // Same result as the log says, or the comparison means nothing.
  const folded = foldLog(decodeLog(unknown));
  if (folded.messages.length !== n || folded.synthesizedCount !== n) {
    throw new Error(`unknown ids: ${folded.messages.length} messages, expected ${n}`);
  }
  const run: Record<Series, (log: Envelope[]) => unknown> = {
    unknown: (log) => foldLog(log),
    one: (log) => foldLog(log),
    /** What this design's storage pays for N messages without any fold. */
    floor: (log) => {
      const index = IdIndex.from<number>();
      const messages = new BatchMessages([]);
      for (let i = 1; i < log.length; i++) {
        const { messageId, delta } = content(log[i]!);
        if (index.get(messageId) !== undefined) continue;
        index.set(messageId, messages.push(message(messageId, delta)));
      }
      return messages.result();
    },
    /** The same with one Map and one array grown by push (the design before). */
    floorOneMap: (log) => {
      const index = new Map<string, number>();
      const messages: RunMessage[] = [];
      for (let i = 1; i < log.length; i++) {
        const { messageId, delta } = content(log[i]!);
        if (index.get(messageId) !== undefined) continue;
        index.set(messageId, messages.length);
        messages.push(message(messageId, delta));
      }
      return messages;
    },
    /** N message objects in an array, no index. */
    objectsOnly: (log) => {
      const messages: RunMessage[] = [];
      for (let i = 1; i < log.length; i++) {
        const { messageId, delta } = content(log[i]!);
        messages.push(message(messageId, delta));
      }
      return messages;
    },
  };
  const logOf = (name: Series) => decodeLog(name === 'one' ? one : unknown);
  return { run, logOf };
}

export const cpuMs = (run: () => unknown, k: number): number => {
  const c0 = process.cpuUsage();
  run();
  const c = process.cpuUsage(c0);
  return (c.user + c.system) / 1000 / k;
};

/** One call's CPU time and its minor page faults (fresh memory the kernel maps for it). */
export const timedCall = (run: () => unknown) => {
  const f0 = process.resourceUsage().minorPageFault;
  const ms = cpuMs(run, 1);
  return { ms, faults: process.resourceUsage().minorPageFault - f0 };
};
