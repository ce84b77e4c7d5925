/**
 * The linearity bench's two logs as the SSE `data:` texts a client receives, and their
 * decoding by the client's own `decodeEnvelope` — shared by the in-process series
 * (`linearity.bench.ts`) and the fresh-process ones (`linearity-cold.ts`).
 */
import type { Envelope } from '@resumable/protocol';
import { decodeEnvelope } from '@resumable/protocol';
import { token } from './tokens.js';

export const RUN_ID = '3f2a6c1e-8b7d-4e2a-9c1f-0123456789ab';
export type Ids = 'server' | 'short';
/** The server's message ids (`ai-sdk/events.ts`: msg-<run id>-<step>), or short ones. */
export const idOf = (ids: Ids, i: number) => (ids === 'server' ? `msg-${RUN_ID}-${i}` : `m${i}`);

/** RUN_STARTED then N CONTENT events for N distinct ids (`unknown`), or N deltas into one. */
export function linearityTexts(n: number, ids: Ids) {
  const start = JSON.stringify({ type: 'RUN_STARTED', threadId: 'th', runId: RUN_ID });
  const delta = (i: number) => (messageId: string) =>
    JSON.stringify({ type: 'TEXT_MESSAGE_CONTENT', messageId, delta: token(i) });
  const unknown = [start, ...Array.from({ length: n }, (_, i) => delta(i)(idOf(ids, i)))];
  const oneId = idOf(ids, 0);
  const one = [
    start,
    JSON.stringify({ type: 'TEXT_MESSAGE_START', messageId: oneId, role: 'assistant' }),
    ...Array.from({ length: n - 1 }, (_, i) => delta(i + 1)(oneId)),
  ];
  return { unknown, one };
}

/** A fresh decoded copy of `texts` (fresh id strings, as each replay gets). */
export const decodeLog = (texts: readonly string[]) =>
  texts.map((text, i) => decodeEnvelope(i + 1, text) as Envelope);

/**
 * What one minor page fault costs this machine (µs of CPU): 8 MB of fresh memory touched
 * once per page. On a VM a fault can cost tens of times what it costs on bare metal, and
 * a fold that keeps N messages may land them on fresh pages.
 */
export function pageFaultMicros(): number {
  const costs: number[] = [];
  for (let r = 0; r < 3; r++) {
    const f0 = process.resourceUsage().minorPageFault;
    const c0 = process.cpuUsage();
    const buffer = Buffer.allocUnsafeSlow(8 << 20);
    for (let i = 0; i < buffer.length; i += 4096) buffer[i] = 1;
    const c = process.cpuUsage(c0);
    const faults = process.resourceUsage().minorPageFault - f0;
    if (faults > 0) costs.push((c.user + c.system) / faults);
  }
  costs.sort((a, b) => a - b);
  return costs[Math.floor(costs.length / 2)] ?? Number.NaN;
}
