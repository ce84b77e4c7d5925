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
 * rendering `<ResumableDevtools />` from `@resumable/devtools`, built with
 * NODE_ENV=production as `pnpm bench size` builds it, can load none of the recorder, the
 * panel or the hooks' observation listener. What is left of the package is its stand-in,
 * `()=>null` (15 B minified), in the app's own chunk. The opted-in build
 * (`@resumable/devtools/production`) is measured the same way, so the check sees the
 * devtools when they are there.
 */
describe('the devtools in a production build', () => {
  it('not opted in: 15 B of stand-in and nothing lazy to load; opted in: the recorder and the panel', async () => {
    const [without, production, optedIn] = await Promise.all(DEVTOOLS_BUNDLES.map(measureDevtools));
    expect(without!.attributed).toEqual({ firstPaint: 0, reachable: 0, written: 0 });
    expect(production!.attributed!.firstPaint).toBe(15);
    expect(production!.attributed!.reachable).toBe(15);
    expect(production!.reachable.chunks).toBe(without!.reachable.chunks);
    expect(optedIn!.attributed!.reachable).toBeGreaterThan(15_000);
    // The panel and the timeline model it shares with the recorder: two lazy chunks more.
    expect(optedIn!.reachable.chunks).toBe(without!.reachable.chunks + 2);
  }, 60_000);
});
