/**
 * `pnpm bench fold`: fold throughput of @resumable/protocol's `applyEnvelopes` beside the
 * two reducers chat apps use today, fed the same logical conversation:
 *
 * - AG-UI: `defaultApplyEvents` from @ag-ui/client, the reducer every AG-UI agent runs,
 *   fed an RxJS Observable one event at a time (as `AbstractAgent.runAgent` does).
 * - AI SDK: `readUIMessageStream` from `ai`, fed a ReadableStream of UI message chunks (as
 *   `useChat` does); each message it yields replaces the last one in the thread array.
 * - Ours: `applyEnvelopes`, one event per call (a client that renders every event), in
 *   batches of 16 (one network read / animation frame while live), and the whole run in
 *   one call (a replay after a reconnect).
 *
 * Workloads: a thread of 200 prior messages, then (1) one reply of 5,000 text deltas, and
 * (2) a run with text, 4 tool calls with streamed arguments and their results
 * (lib/fold-workloads.ts).
 *
 * Against its own past: today's fold per event beside the fold of commit 6badced (the last
 * before the hardening: ids as data in sampled-hash indexes, tool-call position maps,
 * bounded lists), its sources taken from git history at bench time (lib/fold-baseline.ts),
 * on the 5,000- and 20,000-delta replies and an agent's mixed turn (reasoning, text, tool
 * calls, several messages). Each fold runs in processes of its own, warmed on the same logs
 * (lib/fold-versus.ts), in pairs of processes taking turns. The ratio is 6badced's time over
 * ours: ≥ 1 means ours folds each event at least as fast.
 *
 * Figures: median of time-boxed samples after warm-up (lib/cpu-samples.ts), by CPU time
 * (this machine is shared; wall time is recorded too), written to bench/results/fold.json.
 * Also: how many message objects change identity per delta. `BENCH_QUICK=1`: a few short
 * samples, a smoke run whose figures go to the temp folder (lib/results.ts).
 */
import { spawnSync } from 'node:child_process';
import { cpus, loadavg } from 'node:os';
import type { AgentStateMutation } from '@ag-ui/client';
import { AbstractAgent, defaultApplyEvents } from '@ag-ui/client';
import type { AGUIEvent, Envelope, Message, RunState } from '@resumable/protocol';
import { applyEnvelopes, foldLog, messageText, toEnvelopes } from '@resumable/protocol';
import type { UIMessage, UIMessageChunk } from 'ai';
import { readUIMessageStream } from 'ai';
import { EMPTY, from, lastValueFrom, type Observable } from 'rxjs';
import { scan } from 'rxjs/operators';
import { type Figures, measure, rate, round } from './lib/cpu-samples.js';
import { foldSourcesAt } from './lib/fold-baseline.js';
import type { VersusWorkload } from './lib/fold-versus.js';
import {
  aguiEvents,
  aiSdkChunks,
  PRIOR,
  prior,
  priorUI,
  REPLY_DELTAS,
  replyRun,
  type Step,
  toolRun,
} from './lib/fold-workloads.js';
import { quickOr, writeResults } from './lib/results.js';
import { median } from './lib/stats.js';

// Both peers skip dev-only guards in production; measure what users ship.
process.env.NODE_ENV = 'production';

// ── the three folds ────────────────────────────────────────────────────────────────────

/** Ours: the thread as state (untimed), then the run's envelopes from offset 2. */
const threadState: RunState = foldLog([
  { offset: 1, event: { type: 'MESSAGES_SNAPSHOT', messages: prior } as AGUIEvent },
]);

function oursRun(envelopes: Envelope[], batch: number): RunState {
  let state = threadState;
  if (batch === 1) {
    for (let i = 0; i < envelopes.length; i++) {
      state = applyEnvelopes(state, [envelopes[i]!]).state;
    }
    return state;
  }
  for (let i = 0; i < envelopes.length; i += batch) {
    state = applyEnvelopes(state, envelopes.slice(i, i + batch)).state;
  }
  return state;
}

class BenchAgent extends AbstractAgent {
  run(): Observable<never> {
    return EMPTY;
  }
}
const input = {
  threadId: 'th',
  runId: 'run',
  state: {},
  messages: [],
  tools: [],
  context: [],
  forwardedProps: {},
};

/** AG-UI: every mutation `defaultApplyEvents` emits, as `runAgent` receives them. */
async function aguiRun(events: AGUIEvent[], onMutation?: (m: AgentStateMutation) => void) {
  const agent = new BenchAgent({ threadId: 'th', initialMessages: prior });
  const mutations = defaultApplyEvents(input, from(events), agent, []);
  const last = await lastValueFrom(
    mutations.pipe(
      scan((messages: Message[] | undefined, mutation) => {
        onMutation?.(mutation);
        return mutation.messages ?? messages;
      }, undefined),
    ),
  );
  return last;
}

/** AI SDK: `readUIMessageStream` over a chunk stream; each yield replaces the thread's last. */
async function aiSdkRun(chunks: UIMessageChunk[], onThread?: (thread: UIMessage[]) => void) {
  const stream = new ReadableStream<UIMessageChunk>({
    start(controller) {
      for (const chunk of chunks) controller.enqueue(chunk);
      controller.close();
    },
  });
  let thread: UIMessage[] = [...priorUI];
  for await (const message of readUIMessageStream({ stream })) {
    const next = thread.length === PRIOR ? [...thread, message] : thread.slice();
    next[PRIOR] = message;
    thread = next;
    onThread?.(thread);
  }
  return thread;
}

/** Message objects whose identity changed between consecutive thread arrays. */
function changedIdentities(previous: readonly object[], next: readonly object[]): number {
  let changed = 0;
  for (let i = 0; i < next.length; i++) if (next[i] !== previous[i]) changed++;
  return changed;
}

async function identityPerDelta(steps: Step[]) {
  const events = aguiEvents(steps);
  const envelopes = toEnvelopes(events, 2);
  const isDelta = (e: AGUIEvent) =>
    e.type === 'TEXT_MESSAGE_CONTENT' || e.type === 'TOOL_CALL_ARGS';

  let ours = 0;
  let oursDeltas = 0;
  let state = threadState;
  for (const envelope of envelopes) {
    const next = applyEnvelopes(state, [envelope]).state;
    if (isDelta(envelope.event)) {
      ours += changedIdentities(state.messages, next.messages);
      oursDeltas++;
    }
    state = next;
  }

  // AG-UI emits one `messages` mutation per event that changes the thread; in this run
  // all but the START/END of the reply are deltas.
  let agui = 0;
  let aguiMutations = 0;
  let previous: readonly object[] = prior;
  await aguiRun(events, (mutation) => {
    if (mutation.messages === undefined) return;
    agui += changedIdentities(previous, mutation.messages);
    aguiMutations++;
    previous = mutation.messages;
  });

  let ai = 0;
  let aiDeltas = 0;
  let previousThread: readonly object[] = priorUI;
  const chunks = aiSdkChunks(steps);
  const deltaChunks = chunks.filter(
    (c) => c.type === 'text-delta' || c.type === 'tool-input-delta',
  );
  await aiSdkRun(chunks, (thread) => {
    ai += changedIdentities(previousThread, thread);
    aiDeltas++;
    previousThread = thread;
  });
  return {
    ours: round(ours / oursDeltas),
    agui: round(agui / aguiMutations),
    // Every yield is one chunk; almost all of them are deltas.
    aiSdk: round(ai / aiDeltas),
    counted: {
      oursDeltas,
      aguiMutations,
      aiSdkYields: aiDeltas,
      aiSdkDeltaChunks: deltaChunks.length,
    },
  };
}

// ── run ────────────────────────────────────────────────────────────────────────────────

interface Row extends Figures {
  fold: string;
  feeding: string;
}

async function workload(name: string, steps: Step[]) {
  const events = aguiEvents(steps);
  const envelopes = toEnvelopes(events, 2);
  const chunks = aiSdkChunks(steps);

  // Same final text everywhere, or the comparison means nothing.
  const ours = oursRun(envelopes, 1);
  const agui = (await aguiRun(events))!;
  const ai = await aiSdkRun(chunks);
  // Every text message ends with the same text in all three, or the comparison is moot.
  for (const step of steps) {
    if (step.kind !== 'text') continue;
    const expected = step.deltas.join('');
    const oursText = messageText(ours.messages[ours.messageIndex.get(step.id)!]!);
    const aguiText = messageText(agui.find((m) => m.id === step.id)!);
    const aiText = ai[PRIOR]!.parts.find((p) => p.type === 'text' && p.text.startsWith(expected));
    if (oursText !== expected) throw new Error(`${name}: ours folded different text`);
    if (aguiText !== expected) throw new Error(`${name}: AG-UI folded different text`);
    if (aiText === undefined) throw new Error(`${name}: AI SDK folded different text`);
  }
  if (ours.messages.length !== agui.length) {
    throw new Error(`${name}: ${ours.messages.length} messages (ours) vs ${agui.length} (AG-UI)`);
  }

  const fast = quickOr(
    { warmupMs: 500, samples: 25, sampleMs: 40 },
    { warmupMs: 0, samples: 1, sampleMs: 0 },
  );
  const slow = quickOr(
    { warmupMs: 1_000, samples: 7, sampleMs: 0 },
    { warmupMs: 0, samples: 1, sampleMs: 0 },
  );
  const rows: Row[] = [
    {
      fold: 'ours applyEnvelopes',
      feeding: 'per event (1 envelope a call)',
      ...(await measure(() => oursRun(envelopes, 1), envelopes.length, fast)),
    },
    {
      fold: 'ours applyEnvelopes',
      feeding: 'batches of 16',
      ...(await measure(() => oursRun(envelopes, 16), envelopes.length, fast)),
    },
    {
      fold: 'ours applyEnvelopes',
      feeding: 'whole run in 1 call (replay)',
      ...(await measure(() => oursRun(envelopes, envelopes.length), envelopes.length, fast)),
    },
    {
      fold: 'AG-UI defaultApplyEvents',
      feeding: 'Observable, per event',
      ...(await measure(() => aguiRun(events), events.length, slow)),
    },
    {
      fold: 'AI SDK readUIMessageStream',
      feeding: 'UI message chunk stream',
      ...(await measure(() => aiSdkRun(chunks), chunks.length, slow)),
    },
  ];
  return { name, rows };
}

function ratios(rows: Row[]) {
  const agui = rows.find((r) => r.fold.startsWith('AG-UI'))!.eventsPerSec;
  const ai = rows.find((r) => r.fold.startsWith('AI SDK'))!.eventsPerSec;
  return rows
    .filter((r) => r.fold.startsWith('ours'))
    .map((r) => ({
      feeding: r.feeding,
      vsAgui: round(r.eventsPerSec / agui),
      vsAiSdk: round(r.eventsPerSec / ai),
    }));
}

const loadBefore = loadavg()[0]!;
console.log(
  `ratios use CPU time per run (this process, GC included); wall time shown too. ` +
    `Load average ${loadBefore.toFixed(2)} on ${cpus().length} CPUs.`,
);
const results = [];
for (const [name, steps] of [
  [`${PRIOR} prior messages + 1 reply of ${REPLY_DELTAS} text deltas`, replyRun],
  [`${PRIOR} prior messages + run with 4 tool calls (streamed args, results)`, toolRun],
] as const) {
  const { rows } = await workload(name, steps as Step[]);
  const r = ratios(rows);
  results.push({ workload: name, rows, ratios: r });
  console.log(`\n${name}`);
  console.table(
    rows.map((row) => ({
      fold: row.fold,
      feeding: row.feeding,
      events: row.events,
      'ms/run (cpu)': row.cpuMs,
      'events/s (cpu)': rate(row.eventsPerSec),
      'ms/run (wall)': row.wallMs,
      'events/s (wall)': rate(row.wallEventsPerSec),
    })),
  );
  console.table(
    r.map((x) => ({
      ours: x.feeding,
      'ours / AG-UI': `${x.vsAgui}×`,
      'ours / AI SDK': `${x.vsAiSdk}×`,
    })),
  );
}

// ── against the fold before the hardening ───────────────────────────────────────────────

const BASELINE = '6badced';
const VERSUS = new URL('./lib/fold-versus.ts', import.meta.url).pathname;
const baselineIndex = foldSourcesAt(BASELINE);
const turns = quickOr(
  { processes: 8, warmupMs: 1_000, rounds: 15, sampleMs: 60 },
  { processes: 1, warmupMs: 0, rounds: 2, sampleMs: 0 },
);

/** One process folding with `fold` ('ours' or the baseline's index path): lib/fold-versus.ts. */
function versusProcess(fold: string): VersusWorkload[] {
  const child = spawnSync(
    process.execPath,
    [
      '--expose-gc',
      '--conditions=@resumable/source',
      '--import',
      'tsx',
      VERSUS,
      fold,
      String(turns.warmupMs),
      String(turns.rounds),
      String(turns.sampleMs),
    ],
    { encoding: 'utf8', timeout: 300_000 },
  );
  if (child.status !== 0) throw new Error(`fold-versus ${fold} failed: ${child.stderr}`);
  return (JSON.parse(child.stdout.trim().split('\n').at(-1)!) as { workloads: VersusWorkload[] })
    .workloads;
}

// Pairs of processes, the order reversed every other pair, so load that comes and goes
// falls on both folds alike; pair p's ratio compares its two processes.
const pairs: { ours: VersusWorkload[]; baseline: VersusWorkload[] }[] = [];
for (let p = 0; p < turns.processes; p++) {
  if (p % 2 === 0) {
    const ours = versusProcess('ours');
    pairs.push({ ours, baseline: versusProcess(baselineIndex) });
  } else {
    const baseline = versusProcess(baselineIndex);
    pairs.push({ ours: versusProcess('ours'), baseline });
  }
}
const versus = pairs[0]!.ours.map((first, k) => {
  for (const pair of pairs) {
    // The same messages from both, or the comparison means nothing.
    if (pair.ours[k]!.digest !== first.digest || pair.baseline[k]!.digest !== first.digest) {
      throw new Error(`${first.workload}: ours and ${BASELINE} folded different messages`);
    }
  }
  const cpu = (side: 'ours' | 'baseline') => median(pairs.map((pair) => pair[side][k]!.cpuMs));
  const wall = (side: 'ours' | 'baseline') => median(pairs.map((pair) => pair[side][k]!.wallMs));
  const ratios = pairs.map((pair) => pair.baseline[k]!.cpuMs / pair.ours[k]!.cpuMs);
  return {
    workload: `${PRIOR} prior messages + ${first.workload}`,
    events: first.events,
    messages: first.messages,
    ours: {
      cpuMs: round(cpu('ours')),
      eventsPerSec: Math.round((first.events / cpu('ours')) * 1000),
    },
    [BASELINE]: {
      cpuMs: round(cpu('baseline')),
      eventsPerSec: Math.round((first.events / cpu('baseline')) * 1000),
    },
    wallMs: { ours: round(wall('ours')), [BASELINE]: round(wall('baseline')) },
    /** 6badced's time over ours, the median of the pairs' ratios (≥ 1: ours is as fast). */
    speedRatio: round(median(ratios)),
    pairRatios: ratios.map((r) => round(r)),
  };
});
console.log(
  `\nPer event (1 envelope a call) against ${BASELINE}'s fold (before the hardening), ` +
    `${turns.processes} pairs of processes, CPU time:`,
);
console.table(
  versus.map((v) => ({
    workload: v.workload,
    events: v.events,
    'ours events/s': rate(v.ours.eventsPerSec),
    [`${BASELINE} events/s`]: rate(v[BASELINE].eventsPerSec),
    'speed ours / 6badced': `${v.speedRatio}×`,
  })),
);
const versusWorst = Math.min(...versus.map((v) => v.speedRatio));
console.log(
  `Target ≥ 1.0× ${BASELINE} per event: ${versusWorst >= 1 ? 'met' : 'NOT met'} (worst ${versusWorst}×).`,
);

const identity = await identityPerDelta(replyRun);
console.log('\nMessage objects that change identity per delta (goal: 1), 5,000-delta reply:');
console.table({
  ours: { 'per delta': identity.ours, feeding: 'per event' },
  'AG-UI': { 'per delta': identity.agui, feeding: 'per emitted mutation' },
  'AI SDK': { 'per delta': identity.aiSdk, feeding: 'per yielded message, thread array' },
});

const worst = Math.min(
  ...results.flatMap((r) => r.ratios.map((x) => Math.min(x.vsAgui, x.vsAiSdk))),
);
const perEventWorst = Math.min(
  ...results.map((r) => {
    const x = r.ratios.find((y) => y.feeding.startsWith('per event'))!;
    return Math.min(x.vsAgui, x.vsAiSdk);
  }),
);
console.log(
  `\nTarget ≥10× each peer: per event ${perEventWorst >= 10 ? 'met' : 'NOT met'} (worst ${perEventWorst}×); ` +
    `any feeding worst ${worst}×.`,
);

const out = writeResults('fold', {
  bench: 'fold',
  date: new Date().toISOString(),
  node: process.version,
  cpu: cpus()[0]?.model ?? 'unknown',
  cpus: cpus().length,
  peers: { '@ag-ui/client': '1.0.0', ai: '7.0.173' },
  loadAverage: { before: round(loadBefore), after: round(loadavg()[0]!) },
  method:
    'Each fold is warmed up, then timed in samples (a sample repeats the run for >= 40 ms; a slow peer gets one run per sample); the figure is the median sample. events/s = events fed per run / CPU time per run (process.cpuUsage: all threads of this process, GC included), so other processes on a shared machine do not skew the ratios; wall-clock figures are recorded beside them. AG-UI: defaultApplyEvents fed an RxJS Observable one event at a time, NODE_ENV=production. AI SDK: readUIMessageStream fed a ReadableStream of UI message chunks, each yielded message replacing the last in the thread array. Ours: applyEnvelopes per event, in batches of 16, and the whole run in one call.',
  results,
  identityChangesPerDelta: identity,
  target: {
    perEventWorstRatio: perEventWorst,
    anyFeedingWorstRatio: worst,
    met: perEventWorst >= 10,
  },
  versusPreHardening: {
    commit: BASELINE,
    method: `Today's applyEnvelopes and ${BASELINE}'s (its packages/protocol sources taken from git history into a temp folder at bench time, its pinned dependencies linked from the installed store), each fed the same envelopes one per call from the same 200-message thread. Each fold runs in processes of its own (lib/fold-versus.ts), which load only that fold: until this run's figures, the comparison ran in the bench's own process after today's fold had already folded the peer workloads, the tool run and every batch size, and ${BASELINE}'s had not. Each process warms its fold on the same three logs in the same order (${turns.warmupMs} ms each), then times them in ${turns.rounds} rounds (the workloads taking turns, order reversed every other round, a minor GC before each sample, a sample repeats the run for >= ${turns.sampleMs} ms) and reports each workload's median CPU time. ${turns.processes} pairs of processes (one per fold, the order reversed every other pair); events/s from the median over processes; speedRatio is the median over pairs of ${BASELINE}'s time / ours, pairRatios each pair's.`,
    results: versus,
    target: { worstSpeedRatio: versusWorst, met: versusWorst >= 1 },
  },
});
console.log(`figures → ${out}`);
