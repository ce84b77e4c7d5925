import { ID_PATTERN } from './resume.js';

/**
 * A client-chosen runId is a secret (protocol.md: a repeated POST hands back the thread's
 * token), so it must carry ≥ 122 random bits: a UUID, or ≥ 22 base64url characters.
 */
export const MIN_RUN_ID_LENGTH = 22;

/** An id the wire carries: `ID_PATTERN`, and not `.` or `..` (path segments a URL resolves away). */
export function isWireId(value: unknown): value is string {
  return typeof value === 'string' && ID_PATTERN.test(value) && value !== '.' && value !== '..';
}

/**
 * Why the server refuses `value` as a client-chosen `POST /runs` runId (its exact
 * `bad_request` message), or null when it takes it. A client checks a stored runId with it:
 * sent as it is, a refused one would be refused on every retry.
 */
export function runIdProblem(value: unknown): string | null {
  if (!isWireId(value)) return 'runId must be 1-200 characters of A-Z a-z 0-9 . _ : -, not . or ..';
  if (value.length < MIN_RUN_ID_LENGTH) {
    return `runId must be unguessable: at least ${MIN_RUN_ID_LENGTH} characters with 122 random bits (use a random UUID)`;
  }
  return null;
}
