import { ResumableError } from './errors.js';

/**
 * Offsets are the integers 1, 2, 3, … of a run's log. A resume point is the highest offset a
 * client has applied (0 before the first event). These helpers parse untrusted text into
 * them; anything else is a `bad_request`, never a silent 0.
 */
export type Offset = number;

const DIGITS = /^(0|[1-9][0-9]{0,15})$/;

/** Whether `value` is an event's offset: a safe integer from 1. */
export function isOffset(value: unknown): value is Offset {
  return typeof value === 'number' && Number.isSafeInteger(value) && value >= 1;
}

/** Whether `value` is a resume point (`after=`): a safe integer from 0. */
export function isResumePoint(value: unknown): value is Offset {
  return typeof value === 'number' && Number.isSafeInteger(value) && value >= 0;
}

/** Parses a resume point (`after=`, `Last-Event-ID`): a non-negative decimal integer. */
export function parseResumePoint(text: string, what = 'after'): Offset {
  const trimmed = text.trim();
  if (!DIGITS.test(trimmed)) {
    throw new ResumableError(
      'bad_request',
      `${what} must be a non-negative integer, got "${text}"`,
    );
  }
  const value = Number(trimmed);
  if (!Number.isSafeInteger(value)) {
    throw new ResumableError('bad_request', `${what} is too large: "${text}"`);
  }
  return value;
}

/**
 * The resume point of a request to `GET /runs/{id}/events`: `after` if given, else
 * `Last-Event-ID`, else 0 (the whole log).
 */
export function resumePointOf(
  after: string | null | undefined,
  lastEventId: string | null | undefined,
): Offset {
  if (after !== null && after !== undefined) return parseResumePoint(after, 'after');
  if (lastEventId !== null && lastEventId !== undefined && lastEventId !== '') {
    return parseResumePoint(lastEventId, 'Last-Event-ID');
  }
  return 0;
}
