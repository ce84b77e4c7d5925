/**
 * Runs on a bench's server: start one, read its whole log once it ended, wait for a
 * condition. Shared by the resume benches (plain session and `useChat` transport).
 */
import type { RecordStorage } from '@resumable/hooks/core';
import { createMemoryStorage } from '@resumable/hooks/core';
import type { Envelope } from '@resumable/protocol';
import { applyEnvelopes, createRunState, decodeEnvelope, messageText } from '@resumable/protocol';
// The record helpers are internals (not on an entry): the bench seeds storage with them.
import { recordOf } from '../../packages/hooks/src/core/records/record-write.js';
import { runRecordKey } from '../../packages/hooks/src/core/records/run-record.js';

export interface StartedRun {
  runId: string;
  threadId: string;
  token: string;
}

/** `POST /runs`; throws on anything but success. */
export async function post(base: string, body: unknown): Promise<StartedRun> {
  const response = await fetch(`${base}/runs`, {
    method: 'POST',
    headers: { 'Content-Type': 'application/json' },
    body: JSON.stringify(body),
  });
  if (!response.ok) throw new Error(`POST /runs: ${response.status}`);
  return (await response.json()) as StartedRun;
}

/** The whole log of a run, as envelopes, once it is no longer running (≤ 30 s). */
export async function readLog(base: string, runId: string, token: string): Promise<Envelope[]> {
  for (let i = 0; i < 600; i++) {
    const r = await fetch(`${base}/runs/${runId}`, {
      headers: { Authorization: `Bearer ${token}` },
    });
    const s = (await r.json()) as { status: string };
    if (s.status !== 'running') break;
    await new Promise((res) => setTimeout(res, 50));
  }
  const text = await (
    await fetch(`${base}/runs/${runId}/events?after=0`, {
      headers: { Authorization: `Bearer ${token}` },
    })
  ).text();
  const envelopes: Envelope[] = [];
  for (const block of text.split('\n\n')) {
    const id = /^id: (\d+)$/m.exec(block)?.[1];
    const data = /^data: (.*)$/m.exec(block)?.[1];
    if (id === undefined || data === undefined) continue;
    const envelope = decodeEnvelope(id, data);
    if (!(envelope instanceof Error)) envelopes.push(envelope);
  }
  return envelopes;
}

/** The text of a run's last message, as the server folded it (`GET /runs/:id`). */
export async function runText(base: string, runId: string, token: string): Promise<string> {
  const response = await fetch(`${base}/runs/${runId}`, {
    headers: { Authorization: `Bearer ${token}` },
  });
  if (!response.ok) throw new Error(`GET /runs/${runId}: ${response.status}`);
  const body = (await response.json()) as { messages: Parameters<typeof messageText>[0][] };
  return messageText(body.messages.at(-1)!);
}

/** Polls `check` every millisecond; throws after `timeoutMs`. */
export async function waitUntil(check: () => boolean, timeoutMs = 30_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!check()) {
    if (Date.now() > deadline) throw new Error('bench: timed out');
    await new Promise((r) => setTimeout(r, 1));
  }
}

/**
 * A memory storage holding the record a page would have persisted after folding
 * `log[0..from)` under `key`: what a reloaded page resumes from.
 */
export async function storageAt(
  log: readonly Envelope[],
  from: number,
  ids: StartedRun,
  key: string,
): Promise<RecordStorage> {
  const storage = createMemoryStorage();
  const state = applyEnvelopes(
    createRunState({ runId: ids.runId, threadId: ids.threadId }),
    log.slice(0, from),
  ).state;
  await storage.update(runRecordKey(key), () => recordOf(key, state, ids, Date.now()));
  return storage;
}
