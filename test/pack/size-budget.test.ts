import { describe, expect, it } from 'vitest';
import {
  DEVTOOLS_BUNDLES,
  GOAL_BUNDLES,
  measureDevtools,
  measureGoal,
} from '../../bench/lib/bundle-size.js';

/**
 * The size goals hold (issue #16): the first paint of each bundle, built as `pnpm bench size`
 * builds it, stays within its goal, so a change that would break one fails here rather than
 * in the next bench run. The figures themselves are the bench's (bench/results/size.json).
 */
describe('bundle size budget', () => {
  it.each(GOAL_BUNDLES.map((bundle) => [bundle.name, bundle] as const))(
    '%s first paint is within its goal',
    async (_name, bundle) => {
      const row = await measureGoal(bundle);
      const kb = (row.firstPaint.gzipBytes / 1024).toFixed(2);
      expect(
        row.firstPaint.gzipBytes,
        `${bundle.name}: ${kb} KB gz, goal ${bundle.goalKb} KB`,
      ).toBeLessThanOrEqual(bundle.goalKb * 1024);
    },
    60_000,
  );
});

/**
 * The devtools are absent from a production build that does not opt in (issue #29): an app
 * rendering `<ResumableDevtools />` from `@resumable/devtools`, built as a production build
 * is (NODE_ENV=production and the `production` export condition Vite, webpack, Next.js and
 * Rollup set), can load none of the recorder, the panel or the hooks' observation listener,
 * and none of them is even written to the output. What is left of the package is its
 * stand-in, `()=>null` (15 B minified), in the app's own chunk: at most as many gzipped bytes
 * more for the first paint (0 to 6 measured, with the code around it). A bundler without the condition (esbuild alone) still loads nothing of
 * them, but writes the panel's chunk, unreachable. The opted-in build
 * (`@resumable/devtools/production`) is measured the same way, so the check sees the
 * devtools when they are there.
 */
describe('the devtools in a production build', () => {
  it('not opted in: 15 B of stand-in, nothing lazy, nothing more written; opted in: the recorder and the panel', async () => {
    const [without, production, optedIn, noCondition] = await Promise.all(
      DEVTOOLS_BUNDLES.map(measureDevtools),
    );
    expect(without!.attributed).toEqual({ firstPaint: 0, reachable: 0, written: 0 });
    expect(production!.attributed).toEqual({ firstPaint: 15, reachable: 15, written: 15 });
    // Gzipped, the 15 B stand-in adds at most its own size: gzip's output moves by a few
    // bytes with the code around it (chunk names, the app's other code), not only with it.
    expect(production!.firstPaint.gzipBytes - without!.firstPaint.gzipBytes).toBeLessThanOrEqual(
      15,
    );
    expect(production!.reachable.chunks).toBe(without!.reachable.chunks);
    expect(production!.lazy).toEqual(without!.lazy);
    expect(optedIn!.attributed!.reachable).toBeGreaterThan(15_000);
    // The panel and the timeline model it shares with the recorder: two lazy chunks more.
    expect(optedIn!.reachable.chunks).toBe(without!.reachable.chunks + 2);
    // Without the condition: nothing reachable beyond the stand-ins, the panel written.
    expect(noCondition!.reachable.chunks).toBe(without!.reachable.chunks);
    // index.ts's three stand-ins, reached through its NODE_ENV check: 25 B.
    expect(noCondition!.attributed!.reachable).toBe(25);
    expect(noCondition!.attributed!.written).toBeGreaterThan(10_000);
  }, 60_000);
});
