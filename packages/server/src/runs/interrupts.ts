import type {
  Interrupt,
  InterruptView,
  ResumeEntry,
  RunAgentInput,
  RunSnapshot,
} from '@resumable/protocol';
import { ResumableError } from '@resumable/protocol';
import type { EventStore, InterruptAnswer } from '../stores/types.js';
import { runInProgress } from './admission.js';

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
  const ids = interrupts.map((i) => i.id);
  const answered = byId(await store.interrupts.get(run.threadId, ids));
  return interrupts.map((interrupt) => {
    const answer = answered.get(interrupt.id);
    const view: InterruptView = { ...interrupt, runId: run.runId, status: 'open' };
    if (!answer) return view;
    Object.assign(view, { status: answer.status, answeredBy: answer.runId });
    return answer.payload === undefined ? view : Object.assign(view, { payload: answer.payload });
  });
}

/** What starting a run does to the thread's interrupts: the answers it records. */
export interface ResumePlan {
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
  const [newest] = await store.listRuns(threadId, 1);
  const interrupts = interruptsEndingRun(newest?.snapshot);
  const ids = new Set([
    ...interrupts.map((i) => i.id),
    ...(resume ?? []).map((e) => e.interruptId),
  ]);
  if (ids.size === 0) return null;
  const answered = byId(await store.interrupts.get(threadId, [...ids]));
  const byOther = (id: string) => {
    const answer = answered.get(id);
    return answer && answer.runId !== runId ? answer : undefined;
  };
  for (const entry of resume ?? []) {
    const answer = byOther(entry.interruptId);
    if (answer) throw interruptAnswered([entry.interruptId], answer.runId);
  }
  const open = interrupts.filter((i) => !byOther(i.id));
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
    return { answers: cancels.map(record), resume: cancels };
  }
  const openIds = new Set(open.map((i) => i.id));
  for (const entry of resume) {
    if (!openIds.has(entry.interruptId)) {
      throw notOpen(entry.interruptId, threadId);
    }
  }
  const given = new Set(resume.map((e) => e.interruptId));
  const missing = open.filter((i) => !given.has(i.id)).map((i) => i.id);
  if (missing.length > 0) {
    throw new ResumableError(
      'bad_request',
      `resume must answer every open interrupt of thread ${threadId}; unanswered: ${missing.join(', ')}`,
    );
  }
  return resume.length === 0 ? null : { answers: resume.map(record), resume };
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
  const winner = await store.interrupts.claim(threadId, runId, plan.answers);
  if (winner !== null) {
    if (input.resume === undefined) throw runInProgress(threadId, winner);
    throw interruptAnswered(
      plan.answers.map((a) => a.interruptId),
      winner,
    );
  }
  const ids = plan.answers.map((a) => a.interruptId);
  return () => store.interrupts.release(threadId, runId, ids);
}

/** `400`: a resume entry for an interrupt the thread does not have open. */
export function notOpen(interruptId: string, threadId: string): ResumableError {
  return new ResumableError(
    'bad_request',
    `resume answers interrupt ${interruptId}, which is not open on thread ${threadId}`,
  );
}

function byId(answers: readonly InterruptAnswer[]): Map<string, InterruptAnswer> {
  return new Map(answers.map((a) => [a.interruptId, a]));
}
