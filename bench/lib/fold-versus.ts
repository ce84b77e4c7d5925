/**
 * One fold timed per event in a process of its own (spawned by `fold.bench.ts` for today's
 * fold and for 6badced's, the two taking turns process by process): the thread state, then
 * each workload's envelopes one per call. Why a process: folded in the bench's own process,
 * today's fold had already run the peer workloads, the tool run and every batch size before
 * the comparison and 6badced's had not, so the two met different heaps and different
 * inline-cache histories. Here each process runs one fold only, warmed on the same logs in
 * the same order as the other's, then timed in rounds (lib/interleaved.ts: the workloads
 * taking turns, a minor collection before each sample).
 *
 * argv: <fold: "ours" or the path of an earlier commit's protocol index.ts> <warm-up ms per
 * workload> <rounds> <sample ms>. Prints `{ workloads: [...] }`: per workload its events,
 * the messages it added, a digest of the folded messages (the parent checks that both folds
 * made the same ones), and the median CPU and wall time per run.
 */
import { createHash } from 'node:crypto';
import type { AGUIEvent, Envelope, RunState } from '@resumable/protocol';
import type { FoldModule } from './fold-baseline.js';
import {
  aguiEvents,
  LONG_REPLY_DELTAS,
  mixedRun,
  PRIOR,
  prior,
  REPLY_DELTAS,
  reply,
  replyRun,
  type Step,
} from './fold-workloads.js';
import { timeInTurns } from './interleaved.js';

/** The comparison's workloads, in the order every process warms and times them. */
const VERSUS_WORKLOADS: readonly (readonly [string, Step[]])[] = [
  [`${REPLY_DELTAS.toLocaleString('en')}-delta reply`, replyRun],
  [`${LONG_REPLY_DELTAS.toLocaleString('en')}-delta reply`, reply(LONG_REPLY_DELTAS)],
  ['mixed turn (reasoning, text, tool calls, several messages)', mixedRun],
];

export interface VersusWorkload {
  workload: string;
  events: number;
  messages: number;
  digest: string;
  cpuMs: number;
  wallMs: number;
}

/** One envelope per call from the thread state, as a client that renders every event. */
function perEvent(fold: FoldModule, envelopes: Envelope[]): () => RunState {
  const thread = fold.foldLog([
    { offset: 1, event: { type: 'MESSAGES_SNAPSHOT', messages: prior } as AGUIEvent },
  ]);
  return () => {
    let state = thread;
    for (let i = 0; i < envelopes.length; i++) {
      state = fold.applyEnvelopes(state, [envelopes[i]!]).state;
    }
    return state;
  };
}

const [which, warmupMs, rounds, sampleMs] = process.argv.slice(2) as [
  string,
  string,
  string,
  string,
];
// Only the fold timed here is loaded (today's package is not imported for 6badced's).
const fold = (
  which === 'ours' ? await import('@resumable/protocol') : await import(which)
) as FoldModule;
const logs = VERSUS_WORKLOADS.map(([, steps]) =>
  aguiEvents(steps).map((event, i): Envelope => ({ offset: 2 + i, event })),
);
const runs = logs.map((envelopes) => perEvent(fold, envelopes));
const t = await timeInTurns(runs, {
  warmupMs: Number(warmupMs),
  rounds: Number(rounds),
  sampleMs: Number(sampleMs),
});
const workloads: VersusWorkload[] = VERSUS_WORKLOADS.map(([workload], k) => {
  const state = runs[k]!();
  return {
    workload,
    events: logs[k]!.length,
    messages: state.messages.length - PRIOR,
    digest: createHash('sha256')
      .update(JSON.stringify([state.offset, state.messages]))
      .digest('hex'),
    cpuMs: t.cpuMs[k]!,
    wallMs: t.wallMs[k]!,
  };
});
console.log(JSON.stringify({ workloads }));
