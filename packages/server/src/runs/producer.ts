import type { AGUIEvent, RunAgentInput } from '@resumable/protocol';
import {
  checkEvent,
  EventType,
  isTerminalEvent,
  outcomeProblem,
  ResumableError,
} from '@resumable/protocol';
import type { Agent } from '../agents/types.js';
import { START_GRACE_MS } from '../defaults.js';
import type { ReadFile } from '../files/references.js';
import type { RunRecord } from '../stores/types.js';
import type { Hub } from '../streams/subscription.js';
import { startClocks } from './deadlines.js';
import {
  agentRunError,
  cancelledEvent,
  errorEvent,
  finishedEvent,
  runError,
  startedEvent,
} from './events.js';
import { RunLog, type RunLogOptions } from './run-log.js';

const ABORTED = Symbol('aborted');
const SLOW_START = Symbol('slow start');

/** A run this instance is producing. */
export class ActiveRun {
  readonly abort = new AbortController();
  readonly log: RunLog;
  cancelRequested = false;
  readonly done: Promise<void>;
  private resolveDone!: () => void;

  constructor(
    readonly record: RunRecord,
    readonly hub: Hub,
    options: Omit<RunLogOptions, 'record' | 'hub' | 'onTooLarge' | 'onOutageTooLong'>,
  ) {
    this.log = new RunLog({
      ...options,
      record,
      hub,
      onFailed: (error) => {
        this.abort.abort();
        options.onFailed(error);
      },
      onTooLarge: (message) => this.end(runError('run_too_large', message)),
      onOutageTooLong: (message) => this.end(runError('store_unavailable', message)),
    });
    this.done = new Promise((resolve) => {
      this.resolveDone = resolve;
    });
  }

  /** Ends the run now with `terminal` (cancel, shutdown, a limit) and stops the agent. */
  end(terminal: AGUIEvent): void {
    this.log.queueTerminal(terminal);
    this.abort.abort();
  }

  markDone(): void {
    this.resolveDone();
  }
}

export interface ProduceOptions {
  agent: Agent;
  log: (message: string) => void;
  /** Silence after which the run ends `agent_timeout`. */
  agentTimeoutMs: number;
  /** Duration after which the run ends `run_timeout`. */
  maxRunMs: number;
  /** Given to the agent (`AgentContext.readFile`). */
  readFile?: ReadFile;
  /** Given to the agent (`AgentContext.answerIndex`). */
  answerIndex?: number;
}

/**
 * Drives the agent of one run: validates what it yields, makes sure the log starts with
 * `RUN_STARTED` and ends with exactly one terminal event, and stops the agent when the
 * run ends for any other reason (cancel, shutdown, a store failure). Resolves once the
 * terminal event is stored (or the log failed).
 */
export async function produce(
  run: ActiveRun,
  input: RunAgentInput,
  options: ProduceOptions,
): Promise<void> {
  const { runId, threadId } = run.record;
  const log = run.log;
  let started = false;
  // Every run ends: a silent agent (hung, or a stalled upstream) and an endless one are
  // ended by the server, keeping what they said so far.
  const clocks = startClocks({
    agentTimeoutMs: options.agentTimeoutMs,
    maxRunMs: options.maxRunMs,
    onSilent: () =>
      run.end(runError('agent_timeout', `the agent sent nothing for ${options.agentTimeoutMs} ms`)),
    onOverdue: () =>
      run.end(runError('run_timeout', `the run reached its limit of ${options.maxRunMs} ms`)),
  });
  try {
    const context = {
      signal: run.abort.signal,
      // An upstream's keep-alive proves the agent is working: the silence deadline waits.
      keepAlive: () => clocks.touch(),
      ...(options.readFile ? { readFile: options.readFile } : {}),
      ...(options.answerIndex ? { answerIndex: options.answerIndex } : {}),
    };
    const iterator = options.agent(input, context)[Symbol.asyncIterator]();
    // Cancel must not wait for an agent that ignores its signal: race every step.
    const aborted = new Promise<typeof ABORTED>((resolve) => {
      if (run.abort.signal.aborted) resolve(ABORTED);
      run.abort.signal.addEventListener('abort', () => resolve(ABORTED), { once: true });
    });
    let next = iterator.next();
    // Give the agent a moment to send its own RUN_STARTED (with its metadata); if it is
    // slow to say anything (a model thinking), announce the run now so clients see it.
    let timer: ReturnType<typeof setTimeout> | undefined;
    const early = await Promise.race([
      next,
      aborted,
      new Promise<typeof SLOW_START>((resolve) => {
        timer = setTimeout(() => resolve(SLOW_START), START_GRACE_MS);
      }),
    ]);
    clearTimeout(timer);
    if (early === SLOW_START) {
      await log.queue(startedEvent(threadId, runId));
      started = true;
    }
    for (let first = true; ; first = false) {
      if (!first) next = iterator.next();
      const step = await Promise.race([next, aborted]);
      clocks.touch();
      if (step === ABORTED || log.terminalQueued) {
        void iterator.return?.()?.catch(() => {});
        break;
      }
      if (step.done) break;
      const checked = checkEvent(step.value);
      if (checked instanceof ResumableError) {
        options.log(`run ${runId}: dropped an event the agent sent: ${checked.message}`);
        continue;
      }
      let event = checked;
      if (event.type === EventType.RUN_STARTED) {
        if (started) continue;
        event = { ...event, threadId, runId };
      } else if (!started) {
        await log.queue(startedEvent(threadId, runId));
      }
      started = true;
      if (isTerminalEvent(event)) {
        if (event.type === EventType.RUN_FINISHED) event = finishedAs(event, threadId, runId);
        else event = agentRunError(event.code, event.message);
        log.queueTerminal(event);
        void iterator.return?.()?.catch(() => {});
        break;
      }
      await log.queue(event);
    }
    log.queueTerminal(
      run.cancelRequested ? cancelledEvent(threadId, runId) : finishedEvent(threadId, runId),
    );
  } catch (error) {
    log.queueTerminal(run.cancelRequested ? cancelledEvent(threadId, runId) : errorEvent(error));
  }
  clocks.stop();
  run.abort.abort();
  await log.settle();
}

/**
 * The agent's `RUN_FINISHED` as stored: under this run's ids, or, when its outcome could not
 * be answered (stored, it would break every later read of the thread), an `agent_failed`
 * error naming the problem. Whatever the agent streamed before it is kept.
 */
function finishedAs(
  event: Extract<AGUIEvent, { type: EventType.RUN_FINISHED }>,
  threadId: string,
  runId: string,
): AGUIEvent {
  const problem = outcomeProblem(event.outcome);
  if (problem === null) return { ...event, threadId, runId };
  return runError(
    'agent_failed',
    `the agent sent a RUN_FINISHED that cannot be answered: ${problem}`,
  );
}
