import { ResumableError } from '@resumable/protocol';

export function timeoutError(what: string, ms: number): ResumableError {
  return new ResumableError('timeout', `${what} did not settle within ${ms} ms`);
}

/** `promise`, or a `timeout` error after `ms` (no limit when `ms` is not a positive number). */
export function withTimeout<T>(promise: Promise<T>, ms: number, what: string): Promise<T> {
  if (!Number.isFinite(ms) || ms <= 0) return promise;
  return new Promise<T>((resolve, reject) => {
    const timer = setTimeout(() => reject(timeoutError(what, ms)), ms);
    promise.then(
      (value) => {
        clearTimeout(timer);
        resolve(value);
      },
      (error) => {
        clearTimeout(timer);
        reject(error);
      },
    );
  });
}
