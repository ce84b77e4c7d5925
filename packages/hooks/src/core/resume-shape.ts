import type { OutboxItem } from './types.js';

/**
 * A stored continuation's `resume` checked against what `POST /runs` accepts
 * (docs/protocol.md, "Answering"): 1–100 entries, each an object with an `interruptId` of
 * the id alphabet, answered once, `status` resolved or cancelled, a `payload` of at most
 * 16 KiB of JSON nesting no deeper than the body allows. Null when anything is off: sent
 * as it is, the server's 400 would hold the item forever.
 */
export function checkedResume(value: unknown): NonNullable<OutboxItem['resume']> | null {
  if (!Array.isArray(value) || value.length === 0 || value.length > MAX_ENTRIES) return null;
  const seen = new Set<string>();
  const out: NonNullable<OutboxItem['resume']> = [];
  for (const entry of value) {
    if (typeof entry !== 'object' || entry === null || Array.isArray(entry)) return null;
    const { interruptId, status, payload } = entry as Record<string, unknown>;
    if (typeof interruptId !== 'string' || !ID.test(interruptId) || seen.has(interruptId)) {
      return null;
    }
    seen.add(interruptId);
    if (status !== 'resolved' && status !== 'cancelled') return null;
    if (payload !== undefined && !fitsPayload(payload)) return null;
    out.push({ interruptId, status, ...(payload === undefined ? {} : { payload }) });
  }
  return out;
}

const MAX_ENTRIES = 100;
const MAX_PAYLOAD_BYTES = 16 * 1024;
/** The server's 64 levels of a request body, less the three above a payload. */
const MAX_PAYLOAD_DEPTH = 61;
const ID = /^[A-Za-z0-9._:-]{1,200}$/;

function fitsPayload(payload: unknown): boolean {
  let json: string | undefined;
  try {
    json = JSON.stringify(payload);
  } catch {
    return false; // a cycle or a BigInt: no JSON at all
  }
  if (json === undefined || new TextEncoder().encode(json).length > MAX_PAYLOAD_BYTES) return false;
  // Bounded by the size above: at most 16 KiB of objects to walk.
  const stack: [unknown, number][] = [[payload, 1]];
  while (stack.length > 0) {
    const [item, depth] = stack.pop()!;
    if (typeof item !== 'object' || item === null) continue;
    if (depth > MAX_PAYLOAD_DEPTH) return false;
    for (const child of Object.values(item)) stack.push([child, depth + 1]);
  }
  return true;
}
