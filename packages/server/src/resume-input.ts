import type { ResumeEntry } from '@resumable/protocol';
import { ResumableError } from '@resumable/protocol';

/** Answers one `POST /runs` may carry (`resume` entries). */
export const MAX_RESUME_ENTRIES = 100;
/** Bytes of JSON one answer's `payload` may have. */
export const MAX_RESUME_PAYLOAD_BYTES = 16 * 1024;
const ID = /^[A-Za-z0-9._:-]{1,200}$/;

function bad(message: string): ResumableError {
  return new ResumableError('bad_request', message);
}

/**
 * Checks the shape of `resume` (AG-UI `ResumeEntry[]`): whether each entry answers an open
 * interrupt of the thread is checked against the store when the run starts.
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
    if (typeof interruptId !== 'string' || !ID.test(interruptId)) {
      throw bad(`${where}.interruptId must be 1-200 characters of A-Z a-z 0-9 . _ : -`);
    }
    if (seen.has(interruptId)) throw bad(`${where} answers interrupt ${interruptId} a second time`);
    seen.add(interruptId);
    if (status !== 'resolved' && status !== 'cancelled') {
      throw bad(`${where}.status must be "resolved" or "cancelled"`);
    }
    if (payload === undefined) return { interruptId, status };
    const bytes = Buffer.byteLength(JSON.stringify(payload) ?? '');
    if (bytes > MAX_RESUME_PAYLOAD_BYTES) {
      throw bad(
        `${where}.payload is ${bytes} bytes of JSON, over the limit of ${MAX_RESUME_PAYLOAD_BYTES}`,
      );
    }
    return { interruptId, status, payload };
  });
}
