/** The two clocks every run has: agent silence, and total duration. */
export interface RunClocks {
  /** The agent just said something: its silence starts over. */
  touch(): void;
  stop(): void;
}

/**
 * Calls `onSilent` once the agent has been silent for `agentTimeoutMs`, and `onOverdue`
 * once the run has lasted `maxRunMs`, whichever comes first. One timer for the silence,
 * re-armed lazily from the last `touch` (not one timer per event).
 */
export function startClocks(options: {
  agentTimeoutMs: number;
  maxRunMs: number;
  onSilent: () => void;
  onOverdue: () => void;
}): RunClocks {
  let last = performance.now();
  let silence: ReturnType<typeof setTimeout> | undefined;
  const check = () => {
    const quiet = performance.now() - last;
    if (quiet >= options.agentTimeoutMs) {
      clear();
      options.onSilent();
      return;
    }
    silence = arm(check, options.agentTimeoutMs - quiet);
  };
  silence = arm(check, options.agentTimeoutMs);
  const deadline = arm(() => {
    clear();
    options.onOverdue();
  }, options.maxRunMs);
  function clear() {
    clearTimeout(silence);
    clearTimeout(deadline);
  }
  return {
    touch() {
      last = performance.now();
    },
    stop: clear,
  };
}

function arm(task: () => void, ms: number): ReturnType<typeof setTimeout> {
  // setTimeout fires at once past 2³¹-1 ms: clamp (a longer wait is re-armed on firing).
  const timer = setTimeout(task, Math.min(Math.max(1, ms), 2 ** 31 - 1));
  timer.unref?.();
  return timer;
}
