import type {
  ConversationEffect,
  ConversationInput,
  ConversationState,
  Payloads,
} from './machine.js';
import { initialConversation, step } from './machine.js';

/** Inputs waiting at most while one is processed (its effects report back synchronously). */
export const MAX_QUEUED_INPUTS = 256;

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
        const result = step(this.current, next);
        this.current = result.state;
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
}
