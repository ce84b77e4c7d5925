import type { ObservedBase, ObservedScope } from '../base/observe.js';
import { notify, observed } from '../base/observe.js';
import type {
  ConversationEffect,
  ConversationEffectKind,
  ConversationInput,
  ConversationInputKind,
  ConversationPhase,
  ConversationState,
  Payloads,
} from './machine.js';
import { initialConversation, step } from './machine.js';

/** Inputs waiting at most while one is processed (its effects report back synchronously). */
export const MAX_QUEUED_INPUTS = 256;

/**
 * A step of the conversation machine that moved it (`observeClient`): its phase, its current
 * run or the item it sends changed. Steps that change none of them (a batch folded, a page
 * shown) are not told: the run's own events tell those.
 */
export interface ObservedConversation extends ObservedBase {
  /** A step of a chat's conversation machine. */
  readonly type: 'conversation';
  /** The input that moved it: `heard`, `joined`, `send`, `accepted`, `ended`… */
  readonly input: ConversationInputKind;
  /** The phase before the step. */
  readonly from: ConversationPhase;
  /** The phase after it (the same as `from` when only the run or the item sent changed). */
  readonly to: ConversationPhase;
  /** The current run after the step (the run it shows), or null. */
  readonly run: string | null;
  /** The run it moved from, when the step changed it. */
  readonly before: string | null;
  /** The effects the step asked for, in order (`join`, `open`, `post`…). */
  readonly effects: readonly ConversationEffectKind[];
}

/**
 * The conversation's one queue: inputs are taken one at a time, in arrival order, through
 * `step`; the effects of one input are carried out (`perform`) before the next input is
 * taken. An input sent while one is processed (an effect reporting back at once, a store
 * listener) waits its turn instead of running inside it, so no input ever sees a state
 * halfway through another. Effects that take time (a snapshot, a POST) report their
 * results later, as inputs of their own.
 */
export class ConversationQueue<P extends Payloads = Payloads> {
  private current: ConversationState<P>;
  private readonly waiting: ConversationInput<P>[] = [];
  private busy = false;

  constructor(
    private readonly perform: (effect: ConversationEffect<P>) => void,
    private readonly onOverflow: (input: ConversationInput<P>) => void = () => {},
    private readonly onError: (error: unknown) => void = () => {},
    owns = true,
    /** Whose conversation it is, for `observeClient` (none: its steps are not told). */
    private readonly scope?: ObservedScope,
  ) {
    this.current = initialConversation<P>(owns);
  }

  get state(): ConversationState<P> {
    return this.current;
  }

  send(input: ConversationInput<P>): void {
    if (this.waiting.length >= MAX_QUEUED_INPUTS) {
      this.onOverflow(input);
      return;
    }
    this.waiting.push(input);
    if (this.busy) return;
    this.busy = true;
    try {
      for (let next = this.waiting.shift(); next; next = this.waiting.shift()) {
        const before = this.current;
        const result = step(before, next);
        this.current = result.state;
        if (this.scope && observed()) this.tell(next, before, result);
        for (const effect of result.effects) {
          try {
            this.perform(effect);
          } catch (error) {
            // A bug in one effect must not leave the queue stuck: the next input still runs.
            this.onError(error);
          }
        }
      }
    } finally {
      this.busy = false;
    }
  }

  private tell(
    input: ConversationInput<P>,
    before: ConversationState<P>,
    { state, effects }: { state: ConversationState<P>; effects: readonly ConversationEffect<P>[] },
  ): void {
    if (
      state.phase === before.phase &&
      state.run === before.run &&
      state.sending === before.sending
    ) {
      return;
    }
    notify<ObservedConversation>({
      type: 'conversation',
      ...this.scope!,
      input: input.type,
      from: before.phase,
      to: state.phase,
      run: state.run,
      before: state.run === before.run ? null : before.run,
      effects: effects.map((effect) => effect.type),
    });
  }
}
