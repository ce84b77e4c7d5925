/**
 * `pnpm bench chaos`: R1 at full scale. 1,000 seeded schedules of one run each against
 * the scripted protocol server (packages/hooks/test/fake-server.ts), driven through the
 * real `RunSession`: stream cuts, duplicate deliveries, rewinds (redelivered offsets),
 * server restarts (every stream dropped, then 503s), reloads that flushed or crashed,
 * and offline spells. Each run's final text is compared with the server's, token by
 * token: characters lost and characters duplicated, summed over all schedules (the goal
 * is 0 and 0). `pnpm test` runs the first 200 schedules (chaos.test.ts).
 *
 * Writes bench/results/chaos.json. `BENCH_QUICK=1`: 20 schedules, figures to the temp
 * folder (lib/results.ts).
 */
import { charDiff, runSchedule } from '../packages/hooks/test/chaos-tab.js';
import { FakeServer } from '../packages/hooks/test/fake-server.js';
import { quickOr, writeResults } from './lib/results.js';

const SCHEDULES = quickOr(1000, 20);

// Same check the suite relies on: the comparison itself can fail.
const probe = charDiff('tok0 tok2 tok2 ', 'tok0 tok1 tok2 ');
if (probe.lost !== 5 || probe.duplicated !== 5) throw new Error('charDiff is broken');

const server = await new FakeServer({ tokens: 1, intervalMs: 1 }).start();
const started = performance.now();
const failures: string[] = [];
let lost = 0;
let duplicated = 0;
let actions = 0;
for (let seed = 1; seed <= SCHEDULES; seed++) {
  const result = await runSchedule(server, seed);
  lost += result.lost;
  duplicated += result.duplicated;
  actions += result.actions;
  if (result.failure) failures.push(result.failure);
  if (seed % 100 === 0) console.log(`${seed} schedules, ${failures.length} failed`);
}
const seconds = (performance.now() - started) / 1000;
await server.close();

const figures = {
  schedules: SCHEDULES,
  disruptions: actions,
  failedSchedules: failures.length,
  charactersLost: lost,
  charactersDuplicated: duplicated,
  seconds: Math.round(seconds * 10) / 10,
  failures: failures.slice(0, 20),
};
writeResults('chaos', figures);
console.table({
  schedules: SCHEDULES,
  disruptions: actions,
  'failed schedules': failures.length,
  'characters lost': lost,
  'characters duplicated': duplicated,
  seconds: figures.seconds,
});
process.exit(failures.length === 0 && lost === 0 && duplicated === 0 ? 0 : 1);
