import { ResumableError } from '@resumable/protocol';

/** Anything thrown, as a `ResumableError` (`internal` unless it already is one). */
export function toResumable(error: unknown): ResumableError {
  if (error instanceof ResumableError) return error;
  return new ResumableError('internal', error instanceof Error ? error.message : String(error), {
    cause: error,
  });
}
