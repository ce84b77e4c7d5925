import { ResumableError } from './errors.js';
import type { Envelope } from './events.js';
import type { FoldResult } from './fold.js';
import { applyEnvelopesWith } from './fold.js';
import { applyJsonPatch } from './patch.js';
import type { RunState } from './state.js';
import { createRunState } from './state.js';

/**
 * The fold: applies a batch of envelopes to a run state and returns the new state.
 *
 * - Pure: `state` is never mutated. New objects are made only along the paths a batch
 *   changes (the streamed message, the arrays above it); every other message keeps its
 *   identity, so memoized rows do not re-render.
 * - Replay-safe: an envelope at or below `state.offset` is a redelivery and is ignored; one
 *   beyond `state.offset + 1` is a gap, reported, not applied.
 * - Join-safe: CONTENT/ARGS/END for an unknown message, tool call or reasoning block, and a
 *   first event that is not RUN_STARTED, synthesize what is missing (the latest in
 *   `state.synthesized`; they have no offset).
 * - Never throws for bad input: malformed or unknown events become `state.warnings`, move
 *   the resume point past them, and the rest of the batch applies.
 *
 * STATE_DELTA and ACTIVITY_DELTA apply through `applyJsonPatch`. A module of its own, so a
 * client that loads JSON Patch lazily (`applyEnvelopesWith`) never reaches it statically.
 */
export function applyEnvelopes(state: RunState, envelopes: Iterable<Envelope>): FoldResult {
  return applyEnvelopesWith(state, envelopes, applyJsonPatch);
}

/** Folds a whole log (offsets 1..N in order) from scratch. */
export function foldLog(envelopes: Iterable<Envelope>, initial?: RunState): RunState {
  const result = applyEnvelopes(initial ?? createRunState(), envelopes);
  if (result.gap) {
    throw new ResumableError(
      'offset_gap',
      `log has a gap: expected offset ${result.gap.expected}, got ${result.gap.received}`,
    );
  }
  return result.state;
}
