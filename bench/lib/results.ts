/**
 * Where a bench writes its figures, and the quick mode every bench honours.
 *
 * `BENCH_QUICK=1` runs a bench with the smallest settings that still go through every
 * step and print every table: a smoke test of the script, not a measurement. Its figures
 * go to the system's temp folder, never over the committed bench/results/*.json.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

export const QUICK = process.env.BENCH_QUICK === '1';

/** `full` normally, `quick` under `BENCH_QUICK=1`. */
export function quickOr<T>(full: T, quick: T): T {
  return QUICK ? quick : full;
}

const resultsDir = QUICK
  ? join(tmpdir(), 'resumable-bench-quick')
  : join(dirname(fileURLToPath(import.meta.url)), '..', 'results');

/** Writes `figures` as `<name>.json` (2-space JSON and a newline); returns the path. */
export function writeResults(name: string, figures: unknown): string {
  const file = join(resultsDir, `${name}.json`);
  mkdirSync(resultsDir, { recursive: true });
  writeFileSync(file, `${JSON.stringify(figures, null, 2)}\n`);
  if (QUICK) console.log(`BENCH_QUICK: figures → ${file} (bench/results untouched)`);
  return file;
}
