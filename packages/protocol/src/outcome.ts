import { MAX_RESUME_ENTRIES } from './resume.js';
import { isWireId } from './run-id.js';

const isObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

/**
 * Why a `RUN_FINISHED` `outcome` from an agent (a server's own, or an upstream one) is not
 * one a server can store and later answer, or null. An interrupt must be answerable: its id
 * in the wire's alphabet (a `resume` entry could not name it otherwise), unique, and no more
 * of them than one `POST /runs` can answer. A server checks every agent's outcome with it
 * before storing it: a stored bad one breaks every later read of its thread.
 */
export function outcomeProblem(outcome: unknown): string | null {
  if (outcome === undefined) return null;
  if (!isObject(outcome)) return 'outcome must be an object';
  const { type, interrupts } = outcome;
  if (type === 'success' || type === 'cancelled') return null;
  if (type !== 'interrupt') return 'outcome.type must be "success", "interrupt" or "cancelled"';
  if (!Array.isArray(interrupts) || interrupts.length === 0) {
    return 'outcome.interrupts must be a non-empty array';
  }
  if (interrupts.length > MAX_RESUME_ENTRIES) {
    return `outcome has ${interrupts.length} interrupts, over the ${MAX_RESUME_ENTRIES} one answer can take`;
  }
  const seen = new Set<string>();
  for (let i = 0; i < interrupts.length; i++) {
    const interrupt: unknown = interrupts[i];
    const where = `outcome.interrupts[${i}]`;
    if (!isObject(interrupt)) return `${where} must be an object`;
    const { id, reason, message, toolCallId } = interrupt;
    if (!isWireId(id)) return `${where}.id must be 1-200 characters of A-Z a-z 0-9 . _ : -`;
    if (seen.has(id)) return `${where}.id ${JSON.stringify(id)} is used twice`;
    seen.add(id);
    if (typeof reason !== 'string' || reason === '') return `${where}.reason must be text`;
    if (message !== undefined && typeof message !== 'string') {
      return `${where}.message must be text`;
    }
    if (toolCallId !== undefined && typeof toolCallId !== 'string') {
      return `${where}.toolCallId must be text`;
    }
  }
  return null;
}
