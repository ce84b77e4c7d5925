import type { RunAgentInput } from '@resumable/protocol';
import { snapshotOf } from '@resumable/protocol';
import type { Agent } from '../agents/types.js';
import { type BranchPlan, planBranch } from '../branches/history.js';
import { fileReader } from '../files/references.js';
import type { EventStore, RunRecord } from '../stores/types.js';
import { lostRunLog } from '../stores/types.js';
import type { FanOut } from '../streams/fan-out.js';
import type { ThreadEvents } from '../threads/thread-events.js';
import type { Admission, Ticket } from './admission.js';
import { lostEvent } from './events.js';
import { claimPlan, planResume } from './interrupts.js';
import type { RunLimits, RunManagerOptions, StartingClient } from './options.js';
import { ActiveRun, produce } from './producer.js';
import type { Recovery } from './recovery.js';

/** What starting a run needs of its `RunManager`. */
export interface RunStartParts {
  store: EventStore;
  agent: Agent;
  instanceId: string;
  limits: RunLimits;
  leaseMs: number;
  log: (message: string) => void;
  files: RunManagerOptions['files'];
  /** Aborted when the manager closes. */
  shutdown: AbortSignal;
  /** The runs this instance produces, by id: a started run is in it until it ends. */
  active: Map<string, ActiveRun>;
  admission: Admission;
  fanOut: FanOut;
  recovery: Recovery;
  threads: ThreadEvents;
}

/**
 * Creates a run and starts producing it: claims the interrupt answers it carries, admits
 * it, places it in the thread's tree, stores its record (an existing run is found, and
 * nothing starts: `created` false), then announces it and runs its agent to the end in
 * the background.
 */
export async function createAndStart(
  parts: RunStartParts,
  input: RunAgentInput,
  client: StartingClient,
  parentMessageId: string | null | undefined,
): Promise<{ created: boolean; run: RunRecord }> {
  const { store, limits } = parts;
  // Answers are claimed before admission, so of two racing answers the second learns
  // who answered (409 interrupt_answered) rather than that a run is in progress.
  const resumePlan = client.threadExists ? await planResume(store, input) : null;
  const unclaim = resumePlan ? await claimPlan(store, input, resumePlan) : async () => {};
  let ticket: Ticket;
  let result: { created: boolean; run: RunRecord };
  let plan: BranchPlan;
  try {
    ticket = await parts.admission.admit({
      runId: input.runId,
      threadId: input.threadId,
      ...client,
    });
    try {
      // Where the run hangs in the thread's tree; an unknown parent is refused here,
      // before anything is stored.
      plan = await planBranch(
        store,
        input,
        parentMessageId,
        limits.agentHistoryMessages,
        limits.maxThreadMessages,
      );
      result = await store.createRun({
        runId: input.runId,
        threadId: input.threadId,
        createdAt: Date.now(),
        owner: parts.instanceId,
        replyTo: plan.replyTo,
        // The store's atomic claim on the thread: one running run across every instance.
        maxRunningInThread: limits.maxRunningRunsPerThread,
        // The thread as read: one deleted and made again since (another owner) is refused.
        ...(client.thread ? { threadToken: client.thread.token } : {}),
      });
    } catch (error) {
      void ticket.release();
      throw error;
    }
  } catch (error) {
    await unclaim().catch(() => {});
    throw error;
  }
  if (!result.created) {
    void ticket.release();
    return result;
  }
  // Registered at once: a subscriber arriving now follows it live, not by polling.
  const run = new ActiveRun(result.run, parts.fanOut.openLocalHub(input.runId), {
    store,
    log: parts.log,
    maxEvents: limits.maxEventsPerRun,
    maxBytes: limits.maxBytesPerRun,
    outage: {
      budgetMs: limits.storeOutageMs,
      maxBytes: limits.storeOutageBytes,
      stallMs: limits.storeStallMs,
    },
    shutdown: parts.shutdown,
    // A conflict means another writer owns the log now; a removed run has no log to end.
    // Otherwise (shutdown during a store outage) the end is retried until it lands: left
    // `running`, the run would keep subscribers polling.
    onFailed: (error) => {
      if (lostRunLog(error)) return;
      const lost = lostEvent('the server could not store the events of this run');
      void parts.recovery.endWithRetries(result.run, lost);
    },
  });
  parts.active.set(input.runId, run);
  let agentInput = input;
  try {
    if (store.acquireLease) {
      await store.acquireLease(input.runId, parts.instanceId, parts.leaseMs);
    }
    // The answers it carries, the branch up to the run's parent, then the request's messages.
    const answering = resumePlan ? { ...input, resume: resumePlan.resume } : input;
    agentInput =
      plan.history.length > 0
        ? { ...answering, messages: [...plan.history, ...input.messages] }
        : answering;
    if (plan.prompt.length > 0) {
      await store.putMessages(input.threadId, input.runId, plan.prompt);
    }
  } catch (error) {
    parts.log(`run ${input.runId}: lease or history not saved: ${String(error)}`);
  }
  parts.threads.runStarted(input, plan.parentId);
  void runToEnd(parts, run, agentInput, ticket, plan.answerIndex);
  return result;
}

/** Produces the run, then lets it go: admission, hub, announcement, lease. */
async function runToEnd(
  parts: RunStartParts,
  run: ActiveRun,
  input: RunAgentInput,
  ticket: Ticket,
  answerIndex: number,
): Promise<void> {
  const { store, files, limits } = parts;
  const { runId } = run.record;
  await produce(run, input, {
    agent: parts.agent,
    log: parts.log,
    agentTimeoutMs: limits.agentTimeoutMs,
    maxRunMs: limits.maxRunMs,
    answerIndex,
    ...(files ? { readFile: fileReader(files.store, files.basePath, run.record.threadId) } : {}),
  });
  parts.active.delete(runId);
  // Given back before the run counts as done: its client may start the next one at once.
  await ticket.release();
  parts.fanOut.closeLocalHub(run.hub);
  // A failed log was ended by whoever wrote it last (a recovery here announces it then).
  if (!run.log.failed) parts.threads.runEnded(snapshotOf(run.log.state));
  if (store.releaseLease) {
    await store.releaseLease(runId, parts.instanceId).catch(() => {});
  }
  run.markDone();
}
