/**
 * One cold fold, in a fresh process (spawned by `linearity.bench.ts`): what a page load's
 * join pays — the fold's code not yet compiled or optimized, the heap young. Loads the
 * fold with a 3-event log first (module loading is the page's, not the join's), then
 * times one `foldLog` of the whole log, freshly decoded, and prints `{ ms, faults }`.
 * argv: <unknown|one> <n> <server|short>
 */
import { foldLog } from '@resumable/protocol';
import type { Ids } from './linearity-logs.js';
import { decodeLog, linearityTexts } from './linearity-logs.js';

const [series, n, ids] = process.argv.slice(2) as ['unknown' | 'one', string, Ids];
const texts = linearityTexts(Number(n), ids)[series];
foldLog(decodeLog(texts.slice(0, 3)));
const log = decodeLog(texts);
const f0 = process.resourceUsage().minorPageFault;
const c0 = process.cpuUsage();
const folded = foldLog(log);
const c = process.cpuUsage(c0);
const faults = process.resourceUsage().minorPageFault - f0;
const expected = series === 'unknown' ? Number(n) : 1;
if (folded.messages.length !== expected) {
  throw new Error(`${series}: ${folded.messages.length} messages, expected ${expected}`);
}
console.log(JSON.stringify({ ms: (c.user + c.system) / 1000, faults }));
