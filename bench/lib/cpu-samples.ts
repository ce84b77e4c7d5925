/** CPU-time samples for the fold bench (fold.bench.ts): a shared machine skews wall time. */
import { median } from './stats.js';

const gc = (globalThis as { gc?: () => void }).gc ?? (() => {});

export interface Figures {
  events: number;
  /** Per run, median over samples: CPU time of this process (all its threads, GC included). */
  cpuMs: number;
  /** Per run, median over samples: wall-clock time. */
  wallMs: number;
  /** events / cpuMs: the figure the ratios use (see `method` in fold.json). */
  eventsPerSec: number;
  wallEventsPerSec: number;
  samples: number;
  runs: number;
}

/**
 * Time-boxed samples: each sample repeats the run until `sampleMs` has passed (a slow peer
 * gets one run per sample) and records CPU and wall time per run; the figure is the median
 * sample. One forced GC before the series, none inside it: a fold pays for its own garbage.
 */
export async function measure(
  run: () => unknown,
  events: number,
  { warmupMs, samples, sampleMs }: { warmupMs: number; samples: number; sampleMs: number },
): Promise<Figures> {
  const warm = performance.now();
  do await run();
  while (performance.now() - warm < warmupMs);
  gc();
  const cpu: number[] = [];
  const wall: number[] = [];
  let runs = 0;
  for (let k = 0; k < samples; k++) {
    const c0 = process.cpuUsage();
    const w0 = performance.now();
    let n = 0;
    do {
      await run();
      n++;
    } while (performance.now() - w0 < sampleMs);
    const c = process.cpuUsage(c0);
    wall.push((performance.now() - w0) / n);
    cpu.push((c.user + c.system) / 1000 / n);
    runs += n;
  }
  const cpuMs = median(cpu);
  const wallMs = median(wall);
  return {
    events,
    cpuMs: round(cpuMs),
    wallMs: round(wallMs),
    eventsPerSec: Math.round((events / cpuMs) * 1000),
    wallEventsPerSec: Math.round((events / wallMs) * 1000),
    samples,
    runs,
  };
}

export const round = (n: number, digits = 3) => Number(n.toPrecision(digits));
export const rate = (n: number) =>
  n >= 1e6 ? `${(n / 1e6).toFixed(2)} M/s` : n >= 1e3 ? `${(n / 1e3).toFixed(1)} k/s` : `${n}/s`;
