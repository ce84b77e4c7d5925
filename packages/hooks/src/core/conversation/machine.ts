/**
 * A conversation's one ordered machine: which run it shows last (its current run), how that
 * run is reached, and what may change the transcript, decided in one place. Everything that
 * can change what a conversation shows is an input — the thread stream's announcements,
 * another tab's word (once the server confirmed it) and its batches of events, the thread's
 * active run (`GET /threads/{id}`), a join's snapshot, history pages, the outbox's POSTs and
 * their answers, the current run's end, the tab's stream role. Inputs go through one queue
 * per conversation (`queue.ts`) into `step`, one at a time, in arrival order; `step` is
 * pure: the next state, and the effects the chat carries out (a join, a stream opened, a
 * POST, a page shown), whose results come back as inputs. No other module keeps its own
 * idea of the current run: the run session follows the run this machine names, and the
 * loops (the thread stream, the leader watch, `knownRun` reads, the outbox) only report.
 *
 * Whatever order the inputs come in:
 * - The current run is the newest one heard of. A run heard of after it already ended (its
 *   `run_started` and `run_ended` in one thread batch: another device answered, a device
 *   was busy) becomes the current run all the same, folded from the server's stored log
 *   (its snapshot): its messages come after everything before them, its outcome (a question
 *   asked, one answered) shows. Runs this conversation moved past never come back, and a
 *   read begun before the current run changed (`basis`) does not move it.
 * - A run is joined once: while its snapshot loads, another word of it (the thread stream,
 *   another tab, the active-run read) changes nothing and no stream of it opens; the join
 *   opens it after the snapshot's offset, or from the offset the session already holds
 *   (never `after=0` when the client holds an offset).
 * - A POST refused because another tab or device was first (`interrupt_answered`,
 *   `run_in_progress`) is the run it names heard of, not an error.
 *
 * ```
 *                 heard (newer)                 joined (going)
 *   idle ─────────────────────────► joining ──────────────────► live
 *    ▲ ▲ ▲                          │  ▲  ▲                     │ │
 *    │ │ └──── joined (over) ───────┘  │  └──── heard (newer) ──┘ │
 *    │ └────── ended ──────────────────┼──────────────────────────┘
 *    │                                 │ heard (newer), refused (a run named)
 *    │ refused (kept, or left)         │
 *    └───────────────────────── sending ◄── send (idle)
 *                                 │ accepted ──► live (its own run)
 *   idle ── loaded (a run going) ──► live     any ── deleted ──► deleted ── reset ──► idle
 *   records not read yet: heard is kept (the newest), heard again once `loaded`
 *   batch of the current run ──► fold it; of another run ──► dropped;  page ──► show it
 * ```
 */

/** Where the conversation is with its current run. */
export type ConversationPhase =
  /** No run going (none yet, or the current one is over): the outbox may send. */
  | 'idle'
  /** A run heard of is being joined: its snapshot on the way, no stream of it open. */
  | 'joining'
  /** The current run is going: its stream open (or, in a follower tab, the leader's batches). */
  | 'live'
  /** An outbox item's POST is in flight (nothing else going): its answer decides what is next. */
  | 'sending'
  /** The thread was deleted (here or elsewhere): nothing is joined, shown or sent until `reset`. */
  | 'deleted';

export const CONVERSATION_PHASES: readonly ConversationPhase[] = [
  'idle',
  'joining',
  'live',
  'sending',
  'deleted',
];

/**
 * What inputs carry that only the chat reads: what it shows of a run heard of (`shown`),
 * another tab's batch of events (`batch`), a history page (`page`).
 */
export interface Payloads {
  shown: unknown;
  batch: unknown;
  page: unknown;
}

/** A run the conversation heard of. */
export interface HeardRun<P extends Payloads = Payloads> {
  runId: string;
  threadId: string;
  token: string | null;
  /** Over when heard of (announced with its end): joined for its stored log only. */
  ended: boolean;
  /** The current run when the word was asked for (a read's start); undefined: now. */
  basis?: string | null;
  /**
   * This chat's outbox holds it (a POST whose answer was lost): its POST, sent again, makes
   * it current (the server's idempotency), so it is not joined as another's.
   */
  own?: boolean;
  /** What the chat shows of it before its snapshot is in (its prompt, where it hangs). */
  shown?: P['shown'];
}

/**
 * What moved a conversation (`ObservedConversation.input`): the `type` of each
 * `ConversationInput` below, which says more of each (a kind missing here fails to
 * compile where the step is told, `queue.ts`).
 */
export type ConversationInputKind =
  /** The records were read. */
  | 'loaded'
  /** A page holds the chat again. */
  | 'held'
  /** A run heard of (the thread stream, another tab, a read, a POST's 409). */
  | 'heard'
  /** A join's snapshot is in. */
  | 'joined'
  /** The current run is over. */
  | 'ended'
  /** Another tab's batch of events. */
  | 'batch'
  /** A history page arrived. */
  | 'page'
  /** The outbox's first item would go out now. */
  | 'send'
  /** An outbox POST answered 201. */
  | 'accepted'
  /** An outbox POST failed. */
  | 'refused'
  /** This tab reads the network itself now, or another tab does. */
  | 'role'
  /** The thread was deleted (here or elsewhere). */
  | 'deleted'
  /** A new conversation. */
  | 'reset';

/**
 * What a conversation's step asked for (`ObservedConversation.effects`): the `type` of each
 * `ConversationEffect` below, which says more of each.
 */
export type ConversationEffectKind =
  /** The finished run's prompt and reply move into the settled transcript. */
  | 'settle'
  /** Follow a run heard of: its snapshot, then its events. */
  | 'join'
  /** Follow the current run's events from the offset held. */
  | 'open'
  /** Follow the run this chat's POST started. */
  | 'own'
  /** Fold another tab's batch into the current run. */
  | 'fold'
  /** Show a history page. */
  | 'show'
  /** POST an outbox item. */
  | 'post'
  /** Let the outbox try its next item. */
  | 'drain'
  /** The thread is gone: the chat ends. */
  | 'end';

export type ConversationInput<P extends Payloads = Payloads> =
  /** The records were read: the run they hold (null: none), and whether it is over. */
  | { type: 'loaded'; run: { runId: string; ended: boolean } | null }
  /** A page holds the chat again (after a release): the live run goes on. */
  | { type: 'held' }
  | { type: 'heard'; run: HeardRun<P> }
  /** A join's snapshot is in (or failed: the session folds the log from what it holds). */
  | { type: 'joined'; runId: string; ended: boolean }
  /** The current run is over (finished, cancelled, failed, stopped). */
  | { type: 'ended'; runId: string }
  /** Another tab's batch of events of run `runId` (a follower tab). */
  | { type: 'batch'; runId: string; batch: P['batch'] }
  /** A history page arrived. */
  | { type: 'page'; page: P['page'] }
  /** The outbox's first item would go out now. */
  | { type: 'send'; runId: string }
  /** Its POST answered 201: the run it started (`run`) is the current one. */
  | { type: 'accepted'; run: HeardRun<P> }
  /**
   * Its POST failed. `named`: a run another tab or device started first (the 409's
   * `interrupt_answered` / `run_in_progress`), heard of this way; `left`: the item left
   * the outbox (the next may go).
   */
  | { type: 'refused'; runId: string; named: HeardRun<P> | null; left: boolean }
  /** This tab reads the network itself now (`solo`, `leader`), or another tab does. */
  | { type: 'role'; owns: boolean }
  | { type: 'deleted' }
  /** A new conversation (`reset()`, or a send after a deletion): no run, nothing past. */
  | { type: 'reset' };

export type ConversationEffect<P extends Payloads = Payloads> =
  /**
   * Move the current run's prompt and reply into the settled part of the transcript (a
   * prompt of run `keep`, the one coming, stays where it is).
   */
  | { type: 'settle'; keep?: string }
  /** Follow `run`: show it, read its snapshot, then `joined`. */
  | { type: 'join'; run: HeardRun<P> }
  /** Follow the current run's events from the offset the session holds. */
  | { type: 'open'; runId: string }
  /** Follow the run this chat's POST started: its record written, then its events. */
  | { type: 'own'; run: HeardRun<P> }
  /** Fold another tab's batch into the current run (where it continues the offset). */
  | { type: 'fold'; runId: string; batch: P['batch'] }
  /** Show a history page. */
  | { type: 'show'; page: P['page'] }
  /** POST the outbox item `runId` (its answer comes back as `accepted` or `refused`). */
  | { type: 'post'; runId: string }
  /** Let the outbox try its next item (the conversation is idle). */
  | { type: 'drain' }
  /** The thread is gone: end the chat (records cleared, the error shown). */
  | { type: 'end' };

export interface ConversationState<P extends Payloads = Payloads> {
  phase: ConversationPhase;
  /** The run shown last (followed, joined or started here); null before any. */
  run: string | null;
  /** The item whose POST is in flight (`sending`, or a run heard of meanwhile). */
  sending: string | null;
  /** Runs this conversation moved past, newest last (bounded): a late word never brings one back. */
  past: readonly string[];
  /** The persisted records were read (`loaded`): until then what is heard waits for them. */
  loaded: boolean;
  /** Heard before the records were read: the newest, heard again once they are. */
  waiting: HeardRun<P> | null;
  /** This tab opens its own streams (`solo`, `leader`); false: another tab does. */
  owns: boolean;
}

/** Runs remembered as past. */
export const MAX_PAST_RUNS = 32;

export function initialConversation<P extends Payloads = Payloads>(
  owns = true,
): ConversationState<P> {
  return {
    phase: 'idle',
    run: null,
    sending: null,
    past: [],
    loaded: false,
    waiting: null,
    owns,
  };
}

export interface Step<P extends Payloads = Payloads> {
  state: ConversationState<P>;
  effects: ConversationEffect<P>[];
}

/** The one transition function: the state after `input`, and what the chat does about it. */
export function step<P extends Payloads>(
  state: ConversationState<P>,
  input: ConversationInput<P>,
): Step<P> {
  const stay: Step<P> = { state, effects: [] };
  switch (input.type) {
    case 'reset':
      return { state: { ...initialConversation<P>(state.owns), loaded: true }, effects: [] };
    case 'role':
      if (input.owns === state.owns) return stay;
      // A new leader resumes the current run from its own offset; a join in flight opens it
      // itself once its snapshot is in.
      return {
        state: { ...state, owns: input.owns },
        effects: state.phase === 'live' && input.owns ? open(state) : [],
      };
    case 'deleted':
      if (state.phase === 'deleted') return stay;
      return {
        state: { ...state, phase: 'deleted', sending: null, waiting: null },
        effects: [{ type: 'end' }],
      };
  }
  if (state.phase === 'deleted') return stay;
  switch (input.type) {
    case 'loaded':
      return loaded(state, input.run);
    case 'held':
      // The outbox's own wait (its retry policy) decides when it sends again.
      return state.phase === 'live' ? { state, effects: open(state) } : stay;
    case 'heard':
      return heard(state, input.run);
    case 'joined': {
      if (state.phase !== 'joining' || state.run !== input.runId) return stay;
      if (input.ended) return idle(state);
      const next: ConversationState<P> = { ...state, phase: 'live' };
      return { state: next, effects: open(next) };
    }
    case 'ended':
      if (state.phase !== 'live' || state.run !== input.runId) return stay;
      return idle(state);
    case 'batch':
      // A run this tab left (or never followed) is another tab's story, not this one's.
      if (input.runId !== state.run) return stay;
      return { state, effects: [{ type: 'fold', runId: input.runId, batch: input.batch }] };
    case 'page':
      return { state, effects: [{ type: 'show', page: input.page }] };
    case 'send':
      if (state.phase !== 'idle' || state.sending !== null) return stay;
      return {
        state: { ...state, phase: 'sending', sending: input.runId },
        effects: [{ type: 'settle' }, { type: 'post', runId: input.runId }],
      };
    case 'accepted': {
      const { runId } = input.run;
      if (state.sending !== runId) return stay;
      // The server took it: it is the thread's newest run, whatever was joined meanwhile.
      const next: ConversationState<P> = {
        ...state,
        phase: 'live',
        sending: null,
        ...movedTo(state, runId),
      };
      const settle: ConversationEffect<P>[] =
        state.phase === 'sending' ? [] : [{ type: 'settle', keep: runId }];
      return { state: next, effects: [...settle, { type: 'own', run: input.run }] };
    }
    case 'refused': {
      if (state.sending !== input.runId) return stay;
      const next: ConversationState<P> = {
        ...state,
        sending: null,
        phase: state.phase === 'sending' ? 'idle' : state.phase,
      };
      if (input.named) {
        const after = heard(next, input.named);
        // The named run is the current one already: the next item may go once it is over.
        return after.state === next && next.phase === 'idle' && input.left ? idle(next) : after;
      }
      return next.phase === 'idle' && input.left ? idle(next) : { state: next, effects: [] };
    }
  }
}

function loaded<P extends Payloads>(
  state: ConversationState<P>,
  run: { runId: string; ended: boolean } | null,
): Step<P> {
  if (state.loaded) return { state, effects: [] };
  // A run this page started or joined before the read finished wins over the stored one.
  const stored = state.phase === 'idle' && state.run === null ? run : null;
  const going = stored !== null && !stored.ended;
  const base: ConversationState<P> = {
    ...state,
    loaded: true,
    waiting: null,
    ...(stored ? { run: stored.runId, phase: going ? 'live' : 'idle' } : {}),
  };
  // What was heard meanwhile, against the run the records hold.
  if (state.waiting) {
    const after = heard(base, state.waiting);
    if (after.state !== base) return after;
  }
  // Nothing going: the chat reads the thread (its active run) before its outbox sends.
  return { state: base, effects: going ? open(base) : [] };
}

/** A run heard of: a newer one becomes the current one (joined); the rest changes nothing. */
function heard<P extends Payloads>(state: ConversationState<P>, run: HeardRun<P>): Step<P> {
  const stay: Step<P> = { state, effects: [] };
  if (!state.loaded) return { state: { ...state, waiting: run }, effects: [] };
  // Asked for before the current run changed: older than what the chat knows now.
  if (run.basis !== undefined && run.basis !== state.run) return stay;
  // The current run (or the one being joined) heard again, a run moved past, or this
  // chat's own POST's (its answer makes it current).
  if (
    run.own ||
    run.runId === state.run ||
    run.runId === state.sending ||
    state.past.includes(run.runId)
  ) {
    return stay;
  }
  return {
    state: { ...state, phase: 'joining', ...movedTo(state, run.runId) },
    effects: [
      { type: 'settle', keep: run.runId },
      { type: 'join', run },
    ],
  };
}

function movedTo<P extends Payloads>(
  state: ConversationState<P>,
  runId: string,
): Pick<ConversationState<P>, 'run' | 'past'> {
  if (state.run === runId) return { run: runId, past: state.past };
  const past = state.run === null ? state.past : [...state.past, state.run].slice(-MAX_PAST_RUNS);
  return { run: runId, past };
}

/** Nothing going: the outbox may send (unless a POST is still out). */
function idle<P extends Payloads>(state: ConversationState<P>): Step<P> {
  const next: ConversationState<P> = {
    ...state,
    phase: state.sending === null ? 'idle' : 'sending',
  };
  return { state: next, effects: next.phase === 'idle' ? [{ type: 'drain' }] : [] };
}

function open<P extends Payloads>(state: ConversationState<P>): ConversationEffect<P>[] {
  return state.run === null ? [] : [{ type: 'open', runId: state.run }];
}
