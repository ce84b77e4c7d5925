import { afterAll, afterEach, beforeAll, expect } from 'vitest';

/**
 * Fails a case of the calling suite file that left an unhandled rejection behind (in the
 * case or in its cleanup): a client that rejects nobody's promise is part of what the
 * hostile suites prove. Call it at the top level before the file's own `afterEach`: hooks
 * run as a stack (vitest's default), so the check runs after the file's cleanup.
 */
export function trackRejections(): void {
  const rejections: unknown[] = [];
  const onRejection = (reason: unknown) => rejections.push(reason);
  beforeAll(() => {
    process.on('unhandledRejection', onRejection);
  });
  afterAll(() => {
    process.off('unhandledRejection', onRejection);
  });
  afterEach(() => {
    // Taken out: the case is failed once, the next ones start clean.
    expect(rejections.splice(0)).toEqual([]);
  });
}
