import type { Interrupt } from './events.js';
import { isPlainObject } from './validate.js';

/** Where an interrupt stands: waiting for an answer, answered, or cancelled. */
export type InterruptStatus = 'open' | 'resolved' | 'cancelled';

/**
 * An interrupt as `GET /runs/{id}` and `GET /threads/{id}` show it (protocol.md, "Human in
 * the loop"): the AG-UI `Interrupt`, the run it interrupted, and its answer, if any.
 */
export type InterruptView = Interrupt & {
  /** The run that ended with this interrupt. */
  runId: string;
  /** `open` until answered; `resolved` by an answer, `cancelled` by a new prompt instead. */
  status: InterruptStatus;
  /** The run that answered (its continuation, or the new prompt that cancelled it). */
  answeredBy?: string;
  /** The answer's `payload`, once answered with one (an approval's reason, a result…). */
  payload?: unknown;
};

const has = (value: Record<string, unknown>, key: string) => Object.hasOwn(value, key);

/** The `payload` a resolved answer takes per reason the kit understands (protocol.md's table). */
const ANSWER_SHAPES: ReadonlyMap<string, [string, (p: Record<string, unknown>) => boolean]> =
  new Map([
    [
      'tool_approval',
      [
        '{approved: true} or {approved: false, reason?: "<text>"}',
        (p) =>
          typeof p.approved === 'boolean' && (!has(p, 'reason') || typeof p.reason === 'string'),
      ],
    ],
    [
      'client_tool',
      [
        '{result: <JSON>} or {error: "<text>"}',
        (p) => has(p, 'result') || typeof p.error === 'string',
      ],
    ],
    ['question', ['{answer: <string or JSON>}', (p) => has(p, 'answer')]],
  ]);

/**
 * Why a resolved answer's `payload` is not what an interrupt of `reason` takes (a sentence
 * after "payload"), or null: checked before the `201`, so no agent meets `42` where it reads
 * `{result}`. Reasons the kit does not know take any payload.
 */
export function answerShapeProblem(reason: string, payload: unknown): string | null {
  const shape = ANSWER_SHAPES.get(reason);
  if (!shape || (isPlainObject(payload) && shape[1](payload))) return null;
  return `for a ${reason} interrupt must be ${shape[0]}`;
}
