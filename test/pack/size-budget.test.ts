import { describe, expect, it } from 'vitest';
import { GOAL_BUNDLES, measureGoal } from '../../bench/lib/bundle-size.js';

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
