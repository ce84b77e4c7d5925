import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { DEFAULTS, HOUR_MS } from '../src/defaults.js';

// The options' `@default` docs are what users read; DEFAULTS (src/defaults.ts) is what the
// code uses. Each interface below names the part of the table its options default to:
// every `@default` with a number or a quoted string must equal the table's entry, and
// every entry must have its `@default` in that interface.
const manager = {
  heartbeatMs: DEFAULTS.heartbeatMs,
  leaseMs: DEFAULTS.leaseMs,
  pollMs: DEFAULTS.pollMs,
  fanoutCoalesceMs: DEFAULTS.fanoutCoalesceMs,
  orphanSweepMs: DEFAULTS.orphanSweepMs,
  retentionHours: DEFAULTS.retention.eventsHours,
  threadEventsKept: DEFAULTS.retention.threadEvents,
  maxBodyBytes: DEFAULTS.limits.maxBodyBytes,
  unreferencedMs: DEFAULTS.files.unreferencedHours * HOUR_MS,
};
const server = {
  store: DEFAULTS.store,
  basePath: DEFAULTS.basePath,
  heartbeatMs: DEFAULTS.heartbeatMs,
  fanoutCoalesceMs: DEFAULTS.fanoutCoalesceMs,
  orphanSweepMs: DEFAULTS.orphanSweepMs,
  leaseMs: DEFAULTS.leaseMs,
  ...DEFAULTS.retention,
};
const { maxBodyBytes, maxStreamsPerAddress, ...runLimits } = DEFAULTS.limits;
const clientKeys = [
  'maxRunningRunsPerThread',
  'maxRunsPerMinutePerThread',
  'maxRunsPerMinutePerAddress',
  'maxRunningRunsPerAddress',
  'maxPromptBytesPerMinutePerAddress',
  'maxThreadMessages',
] as const;
const pick = (keys: readonly (keyof typeof runLimits)[]) =>
  Object.fromEntries(keys.map((key) => [key, runLimits[key]]));
const runOnly = Object.fromEntries(
  Object.entries(runLimits).filter(([key]) => !(clientKeys as readonly string[]).includes(key)),
);

const CASES: Array<[file: string, name: string, table: Record<string, unknown>]> = [
  ['src/runs/admission.ts', 'ClientLimits', pick(clientKeys)],
  ['src/runs/options.ts', 'RunLimits', runOnly],
  ['src/runs/options.ts', 'RunManagerOptions', manager],
  ['src/app.ts', 'ServerLimits', { maxBodyBytes, maxStreamsPerAddress }],
  ['src/app.ts', 'FileOptions', DEFAULTS.files],
  ['src/app.ts', 'ResumableServerOptions', server],
  ['src/agents/sse-reader.ts', 'UpstreamTimeouts', DEFAULTS.upstream],
  [
    'src/stores/redis/options.ts',
    'RedisStoreOptions',
    (({ durableAppends: _durable, slotsRefreshInterval: _slots, ...documented }) => documented)(
      DEFAULTS.redis,
    ),
  ],
  ['src/stores/memory/memory-store.ts', 'MemoryStoreOptions', DEFAULTS.memory],
  ['src/node.ts', 'StartServerOptions', DEFAULTS.startServer],
];

/** `@default` values (numbers and quoted strings) of an interface's options, by name. */
function documentedDefaults(file: string, name: string): Map<string, unknown> {
  const source = readFileSync(new URL(`../${file}`, import.meta.url), 'utf8');
  const start = source.indexOf(`export interface ${name} `);
  if (start < 0) throw new Error(`${file} has no interface ${name}`);
  const body = source.slice(start, source.indexOf('\n}\n', start));
  const found = new Map<string, unknown>();
  // Each option: its JSDoc block, then its name.
  for (const [, doc = '', option = ''] of body.matchAll(
    /\/\*\*((?:(?!\*\/)[\s\S])*)\*\/\s*(\w+)\??:/g,
  )) {
    const text = /@default ([^\n]*)/.exec(doc)?.[1]?.trim() ?? '';
    const quoted = /^'([^']*)'/.exec(text);
    const number = /^[0-9][0-9_]*/.exec(text);
    if (quoted) found.set(option, quoted[1]);
    else if (number) found.set(option, Number(number[0].replaceAll('_', '')));
  }
  return found;
}

describe('DEFAULTS is the one table the option docs agree with', () => {
  for (const [file, name, table] of CASES) {
    it(`${name} (${file})`, () => {
      const documented = documentedDefaults(file, name);
      expect(Object.fromEntries(documented)).toEqual(table);
    });
  }
});
