/**
 * Ranks a CPU profile `BENCH_UI_PROFILE` recorded (bench/ui.bench.ts) by self time: per
 * function, and per module and package of the page's unminified build (read from the source
 * maps saved beside the profile).
 *
 *   node --import tsx bench/lib/rank-profile.ts <folder>/<renderer>.cpuprofile [top]
 */
import { existsSync, readFileSync } from 'node:fs';
import { basename, dirname, join } from 'node:path';

interface CallFrame {
  functionName: string;
  url: string;
  lineNumber: number;
  columnNumber: number;
}
interface ProfileNode {
  id: number;
  callFrame: CallFrame;
  hitCount?: number;
  children?: number[];
}
interface Profile {
  nodes: ProfileNode[];
  samples: number[];
  timeDeltas: number[];
  startTime: number;
  endTime: number;
}

const [file, topArg] = process.argv.slice(2);
if (!file) throw new Error('usage: rank-profile.ts <file.cpuprofile> [top]');
const top = Number(topArg ?? 40);
const profile = JSON.parse(readFileSync(file, 'utf8')) as Profile;

/**
 * Each script's source map, decoded to its segments per generated line: [column, source].
 * (Base64 VLQ, the source map v3 encoding: only the generated column and the source index
 * are kept.)
 */
const segmentsOf = new Map<string, { sources: string[]; lines: [number, number][][] } | null>();
const BASE64 = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/';
function decodeMap(path: string): { sources: string[]; lines: [number, number][][] } | null {
  if (!existsSync(path)) return null;
  const map = JSON.parse(readFileSync(path, 'utf8')) as { sources: string[]; mappings: string };
  const lines: [number, number][][] = [];
  let source = 0;
  for (const lineText of map.mappings.split(';')) {
    const line: [number, number][] = [];
    let column = 0;
    for (const segment of lineText.split(',')) {
      if (segment === '') continue;
      const fields: number[] = [];
      let value = 0;
      let shift = 0;
      for (const char of segment) {
        const digit = BASE64.indexOf(char);
        value += (digit & 31) << shift;
        if (digit & 32) shift += 5;
        else {
          fields.push(value & 1 ? -(value >>> 1) : value >>> 1);
          value = 0;
          shift = 0;
        }
      }
      column += fields[0]!;
      if (fields.length > 1) {
        source += fields[1]!;
        line.push([column, source]);
      }
    }
    lines.push(line);
  }
  return { sources: map.sources, lines };
}
function moduleAt(url: string, line: number, column: number): string | null {
  if (!url.endsWith('.js')) return null;
  if (!segmentsOf.has(url)) {
    const name = `${new URL(url).pathname.slice(1).replace(/\//g, '_')}.map`;
    segmentsOf.set(url, decodeMap(join(dirname(file!), 'scripts', name)));
  }
  const map = segmentsOf.get(url);
  const segments = map?.lines[line];
  if (!map || !segments || segments.length === 0) return null;
  let found = segments[0]!;
  for (const segment of segments) if (segment[0] <= column) found = segment;
  return map.sources[found[1]] ?? null;
}

/** A module path → its package (or `ours:<file>` for the workspace's sources). */
function packageOf(module: string | null, frame: CallFrame): string {
  if (!module) return frame.url === '' ? `(${frame.functionName || 'native'})` : '(unknown)';
  const inModules = /node_modules\/(?:\.pnpm\/[^/]+\/node_modules\/)?((?:@[^/]+\/)?[^/]+)/.exec(
    module,
  );
  if (inModules) return inModules[1]!;
  return `ours:${module.replace(/^.*?(packages|bench|apps)\//, '$1/')}`;
}

// Self time per node: the samples it was on top of, by the time before the next sample.
const self = new Map<number, number>();
for (let i = 0; i < profile.samples.length; i++) {
  const id = profile.samples[i]!;
  self.set(id, (self.get(id) ?? 0) + (profile.timeDeltas[i + 1] ?? 0) / 1000);
}
const byFunction = new Map<string, number>();
const byPackage = new Map<string, number>();
const byModule = new Map<string, number>();
let total = 0;
let idle = 0;
for (const node of profile.nodes) {
  const ms = self.get(node.id) ?? 0;
  if (ms === 0) continue;
  const frame = node.callFrame;
  if (frame.functionName === '(idle)' || frame.functionName === '(program)') {
    if (frame.functionName === '(idle)') idle += ms;
    else total += ms;
    const key = frame.functionName;
    byPackage.set(key, (byPackage.get(key) ?? 0) + ms);
    continue;
  }
  total += ms;
  const module = moduleAt(frame.url, frame.lineNumber, frame.columnNumber);
  const pkg = packageOf(module, frame);
  const where = module
    ? module.replace(/^.*node_modules\//, '').replace(/^.*?packages\//, '')
    : basename(frame.url);
  const fn = `${frame.functionName || '(anonymous)'}  ${where}:${frame.lineNumber + 1}`;
  byFunction.set(fn, (byFunction.get(fn) ?? 0) + ms);
  byPackage.set(pkg, (byPackage.get(pkg) ?? 0) + ms);
  if (module) byModule.set(module, (byModule.get(module) ?? 0) + ms);
}

// Total time per function: the samples with it anywhere on the stack (once per stack).
const parentOf = new Map<number, number>();
for (const node of profile.nodes)
  for (const child of node.children ?? []) parentOf.set(child, node.id);
const nodeById = new Map(profile.nodes.map((node) => [node.id, node]));
const keyOf = new Map<number, string>();
for (const node of profile.nodes) {
  const frame = node.callFrame;
  const module = moduleAt(frame.url, frame.lineNumber, frame.columnNumber);
  const where = module
    ? module.replace(/^.*node_modules\//, '').replace(/^.*?packages\//, '')
    : basename(frame.url);
  keyOf.set(node.id, `${frame.functionName || '(anonymous)'}  ${where}:${frame.lineNumber + 1}`);
}
const byTotal = new Map<string, number>();
for (const [id, ms] of self) {
  const seen = new Set<string>();
  for (let at: number | undefined = id; at !== undefined; at = parentOf.get(at)) {
    const key = keyOf.get(at)!;
    if (nodeById.get(at)!.callFrame.functionName === '(root)' || seen.has(key)) continue;
    seen.add(key);
    byTotal.set(key, (byTotal.get(key) ?? 0) + ms);
  }
}

const table = (title: string, map: Map<string, number>, n: number) => {
  console.log(`\n${title}`);
  for (const [name, ms] of [...map].sort((a, b) => b[1] - a[1]).slice(0, n)) {
    console.log(
      `${ms.toFixed(0).padStart(8)} ms ${((100 * ms) / total).toFixed(1).padStart(5)}%  ${name}`,
    );
  }
};
console.log(`${file}: ${total.toFixed(0)} ms busy (${idle.toFixed(0)} ms idle), throttled time`);
table('self time by package', byPackage, 30);
table('self time by function', byFunction, top);
table('self time by module', byModule, 30);
table('total time by function (on the stack)', byTotal, top);
