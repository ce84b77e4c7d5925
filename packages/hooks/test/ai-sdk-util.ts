import type { ResumableChatTransportOptions } from '../src/ai-sdk/index.js';
import { ResumableChatTransport } from '../src/ai-sdk/index.js';
import type { ManualSignal } from '../src/core/index.js';
import { createManualSignal, createMemoryStorage } from '../src/core/index.js';

/**
 * A transport (a tab) on `endpoint` for tests: memory storage unless given (tabs given the
 * same storage share it as one origin's IndexedDB), fast backoff, warnings dropped, always
 * visible, no pagehide, and an online signal the test may hold.
 */
export function openTransport(
  endpoint: string,
  options: Partial<ResumableChatTransportOptions> & { online?: ManualSignal } = {},
): ResumableChatTransport {
  const { online, env, ...rest } = options;
  return new ResumableChatTransport({
    endpoint,
    storage: createMemoryStorage(),
    backoff: { initialMs: 10, maxMs: 100 },
    onWarning: () => {},
    ...rest,
    env: {
      online: online ?? createManualSignal(true),
      visible: createManualSignal(true),
      onPageHide: () => () => {},
      ...env,
    },
  });
}
