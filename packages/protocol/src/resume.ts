import { ResumableError } from './errors.js';
import type { ResumeEntry } from './events.js';

/** Ids are opaque, but they travel in URLs and logs: the wire keeps them to this alphabet. */
export const ID_PATTERN = /^[A-Za-z0-9._:-]{1,200}$/;
/** Answers one `POST /runs` may carry (`resume` entries). */
export const MAX_RESUME_ENTRIES = 100;
/** Bytes of JSON one answer's `payload` may have. */
export const MAX_RESUME_PAYLOAD_BYTES = 16 * 1024;
/** Levels a `payload` may nest: a request body's 64, less the three above a payload. */
export const MAX_RESUME_PAYLOAD_DEPTH = 61;

function bad(message: string): ResumableError {
  return new ResumableError('bad_request', message);
}

/**
 * Checks the shape of `resume` (AG-UI `ResumeEntry[]`, docs/protocol.md "Answering") and
 * returns its entries, or throws a `bad_request` naming the first problem. The server
 * checks each request with it; a client checks a stored answer with it before sending,
 * since the server would refuse it forever. Whether each entry answers an open interrupt
 * is the server's to check against its store.
 */
export function parseResume(value: unknown): ResumeEntry[] | undefined {
  if (value === undefined || value === null) return undefined;
  if (!Array.isArray(value))
    throw bad('resume must be an array of {interruptId, status, payload?}');
  if (value.length > MAX_RESUME_ENTRIES) {
    throw bad(`resume has ${value.length} entries, over the limit of ${MAX_RESUME_ENTRIES}`);
  }
  const seen = new Set<string>();
  return value.map((entry: unknown, i) => {
    const where = `resume[${i}]`;
    if (typeof entry !== 'object' || entry === null || Array.isArray(entry)) {
      throw bad(`${where} must be an object {interruptId, status, payload?}`);
    }
    const { interruptId, status, payload } = entry as Record<string, unknown>;
    if (typeof interruptId !== 'string' || !ID_PATTERN.test(interruptId)) {
      throw bad(`${where}.interruptId must be 1-200 characters of A-Z a-z 0-9 . _ : -`);
    }
    if (seen.has(interruptId)) throw bad(`${where} answers interrupt ${interruptId} a second time`);
    seen.add(interruptId);
    if (status !== 'resolved' && status !== 'cancelled') {
      throw bad(`${where}.status must be "resolved" or "cancelled"`);
    }
    if (payload === undefined) return { interruptId, status };
    checkPayload(payload, where);
    return { interruptId, status, payload };
  });
}

function checkPayload(payload: unknown, where: string): void {
  let json: string | undefined;
  try {
    json = JSON.stringify(payload);
  } catch {
    throw bad(`${where}.payload is not JSON`); // a cycle or a BigInt
  }
  const bytes = new TextEncoder().encode(json ?? '').length;
  if (bytes > MAX_RESUME_PAYLOAD_BYTES) {
    throw bad(
      `${where}.payload is ${bytes} bytes of JSON, over the limit of ${MAX_RESUME_PAYLOAD_BYTES}`,
    );
  }
  // Bounded by the size above: at most 16 KiB of objects to walk.
  const stack: [unknown, number][] = [[payload, 1]];
  while (stack.length > 0) {
    const [item, depth] = stack.pop()!;
    if (typeof item !== 'object' || item === null) continue;
    if (depth > MAX_RESUME_PAYLOAD_DEPTH) {
      throw bad(`${where}.payload nests deeper than ${MAX_RESUME_PAYLOAD_DEPTH} levels`);
    }
    for (const child of Object.values(item)) stack.push([child, depth + 1]);
  }
}
