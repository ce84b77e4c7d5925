import type {
  Interrupt,
  InterruptView,
  ResumeEntry,
  RunAgentInput,
  RunSnapshot,
} from '@resumable/protocol';
import { answerShapeProblem, ResumableError } from '@resumable/protocol';
import type { EventStore, InterruptAnswer } from '../stores/types.js';
import { runInProgress } from '../stores/types.js';
import { releaseAbandoned, standingAnswers } from './stale-claims.js';

type Ended = Pick<RunSnapshot, 'runId' | 'threadId' | 'status' | 'outcome'>;

/** The interrupts a run ended with (`RUN_FINISHED outcome:{type:"interrupt"}`), else none. */
export function interruptsEndingRun(run: Ended | null | undefined): Interrupt[] {
  if (run?.status !== 'finished') return [];
  return run.outcome?.type === 'interrupt' ? run.outcome.interrupts : [];
}

/** The run's interrupts with their answers, as `GET /runs/{id}` and `GET /threads/{id}` show them. */
export async function interruptViews(store: EventStore, run: Ended): Promise<InterruptView[]> {
  const interrupts = interruptsEndingRun(run);
  if (interrupts.length === 0) return [];
  const keys = interrupts.map((i) => scoped(run.runId, i.id));
  // An abandoned claim (its run never created) shows the interrupt open again.
  const { standing } = await standingAnswers(store, await store.interrupts.get(run.threadId, keys));
  const answered = byId(standing);
  return interrupts.map((interrupt) => {
    const answer = answered.get(scoped(run.runId, interrupt.id));
    const view: InterruptView = { ...interrupt, runId: run.runId, status: 'open' };
    if (!answer) return view;
    Object.assign(view, { status: answer.status, answeredBy: answer.runId });
    return answer.payload === undefined ? view : Object.assign(view, { payload: answer.payload });
  });
}

/** What starting a run does to the thread's interrupts: the answers it records. */
export interface ResumePlan {
  /** The interrupted run whose interrupts the answers are for. */
  scope: string;
  answers: InterruptAnswer[];
  /** The agent's `resume`: the request's, or the cancellations a new prompt makes. */
  resume: ResumeEntry[];
}

/** `409 interrupt_answered`; its body names the run that answered (`error.runId`). */
export function interruptAnswered(interruptIds: readonly string[], runId: string): ResumableError {
  return new ResumableError(
    'interrupt_answered',
    `interrupt ${interruptIds.join(', ')} was already answered by run ${runId}`,
    { runId },
  );
}

/**
 * Checks `input.resume` against the thread's interrupts (protocol.md, "Human in the
 * loop"): an entry for an interrupt another run answered is `409 interrupt_answered`; an
 * entry for one that is not open, or a resume that leaves an open one unanswered, is
 * `400`. Without `resume`, a new prompt cancels the open interrupts. Null: nothing to record.
 */
export async function planResume(
  store: EventStore,
  input: RunAgentInput,
): Promise<ResumePlan | null> {
  const { threadId, runId, resume } = input;
  // The newest run's interrupts may be open; the run before it was answered by the newest
  // (or its cancellations), which makes a late answer to it a 409 rather than a 400.
  const runs = await store.listRuns(threadId, 2);
  const asked = runs
    .map((run) => ({ run, interrupts: interruptsEndingRun(run.snapshot) }))
    .filter((a) => a.interrupts.length > 0);
  const keys = asked.flatMap(({ run, interrupts }) =>
    interrupts.map((i) => scoped(run.runId, i.id)),
  );
  const recorded = keys.length > 0 ? await store.interrupts.get(threadId, keys) : [];
  // A claim whose run was never created (its release failed too) is given up here, so the
  // interrupt can be answered again by any run.
  const { standing, abandoned } = await standingAnswers(store, recorded);
  if (abandoned.length > 0) await releaseAbandoned(store, threadId, abandoned);
  const answered = byId(standing);
  const byOther = (asker: string, id: string) => {
    const answer = answered.get(scoped(asker, id));
    return answer && answer.runId !== runId ? answer : undefined;
  };
  for (const entry of resume ?? []) {
    // The newest run that asked it (ids may repeat across runs).
    const asker = asked.find((a) => a.interrupts.some((i) => i.id === entry.interruptId));
    const answer = asker && byOther(asker.run.runId, entry.interruptId);
    if (answer) throw interruptAnswered([entry.interruptId], answer.runId);
  }
  const current = asked[0]?.run === runs[0] ? asked[0] : undefined;
  if (!current) {
    const [entry] = resume ?? [];
    if (entry) throw notOpen(entry.interruptId, threadId);
    return null;
  }
  const scope = current.run.runId;
  const open = current.interrupts.filter((i) => !byOther(scope, i.id));
  const now = Date.now();
  const record = (entry: ResumeEntry): InterruptAnswer => ({
    interruptId: entry.interruptId,
    runId,
    status: entry.status,
    answeredAt: now,
    ...(entry.payload === undefined ? {} : { payload: entry.payload }),
  });
  if (resume === undefined) {
    if (open.length === 0) return null;
    const cancels = open.map((i): ResumeEntry => ({ interruptId: i.id, status: 'cancelled' }));
    return { scope, answers: cancels.map(record), resume: cancels };
  }
  const openById = new Map(open.map((i) => [i.id, i]));
  for (const entry of resume) {
    if (!openById.has(entry.interruptId)) {
      throw notOpen(entry.interruptId, threadId);
    }
  }
  for (const [i, entry] of resume.entries()) {
    const reason = (openById.get(entry.interruptId) as Interrupt).reason;
    const problem = entry.status === 'resolved' ? answerShapeProblem(reason, entry.payload) : null;
    if (problem !== null)
      throw new ResumableError('bad_request', `resume[${i}].payload ${problem}`);
  }
  const given = new Set(resume.map((e) => e.interruptId));
  const missing = open.filter((i) => !given.has(i.id)).map((i) => i.id);
  if (missing.length > 0) {
    throw new ResumableError(
      'bad_request',
      `resume must answer every open interrupt of thread ${threadId}; unanswered: ${missing.join(', ')}`,
    );
  }
  return resume.length === 0 ? null : { scope, answers: resume.map(record), resume };
}

/**
 * Records the plan's answers, first answer wins: another run's earlier answer is a `409
 * interrupt_answered` for an answer, and `409 run_in_progress` for a new prompt (the
 * continuation that answered runs now). Returns the undo for a run that is then not created.
 */
export async function claimPlan(
  store: EventStore,
  input: RunAgentInput,
  plan: ResumePlan,
): Promise<() => Promise<void>> {
  const { threadId, runId } = input;
  const keyed = plan.answers.map((a) => ({ ...a, interruptId: scoped(plan.scope, a.interruptId) }));
  const winner = await store.interrupts.claim(threadId, runId, keyed);
  if (winner !== null) {
    if (input.resume === undefined) throw runInProgress(threadId, winner);
    throw interruptAnswered(
      plan.answers.map((a) => a.interruptId),
      winner,
    );
  }
  const keys = keyed.map((a) => a.interruptId);
  return () => store.interrupts.release(threadId, runId, keys);
}

/** `400`: a resume entry for an interrupt the thread does not have open. */
export function notOpen(interruptId: string, threadId: string): ResumableError {
  return new ResumableError(
    'bad_request',
    `resume answers interrupt ${interruptId}, which is not open on thread ${threadId}`,
  );
}

/**
 * The ledger's key of an interrupt: its id within the run that asked (ids may repeat across
 * runs; `/` is outside the id alphabet, so the pair is unambiguous).
 */
function scoped(runId: string, interruptId: string): string {
  return `${runId}/${interruptId}`;
}

function byId(answers: readonly InterruptAnswer[]): Map<string, InterruptAnswer> {
  return new Map(answers.map((a) => [a.interruptId, a]));
}
