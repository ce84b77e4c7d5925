import { useSyncExternalStore } from 'react';
import { onWire, type WireEvent } from './wire.js';

/**
 * The inspector's timeline: what crossed the wire (requests with their resume point,
 * offsets as they arrived, how each stream ended) and what the client decided (connection
 * phases with their reasons). Consecutive live offsets are merged into one growing row so a
 * 600-event answer is a handful of rows, and the log keeps only the latest `MAX_ROWS`.
 */

export type RowTone = 'request' | 'replay' | 'live' | 'ok' | 'warn' | 'info';

export interface InspectorRow {
  key: number;
  at: number;
  tone: RowTone;
  text: string;
  /** For merged offset rows. */
  from?: number;
  to?: number;
  count?: number;
}

export interface InspectorTotals {
  replayed: number;
  live: number;
  requests: number;
  drops: number;
  /** The `after` of the last events request: where the client asked to resume. */
  lastAfter: number | null;
  /** Highest offset seen on the wire. */
  lastOffset: number;
}

export interface InspectorState {
  rows: InspectorRow[];
  totals: InspectorTotals;
}

const MAX_ROWS = 200;
const listeners = new Set<() => void>();
let nextKey = 1;
let state: InspectorState = {
  rows: [],
  totals: { replayed: 0, live: 0, requests: 0, drops: 0, lastAfter: null, lastOffset: 0 },
};

// The wire can deliver 50 reads a second; the panel redraws at most 5 times a second so
// watching the mechanism does not slow down the thing it watches.
const RENDER_INTERVAL_MS = 200;
let notifyTimer: ReturnType<typeof setTimeout> | undefined;

function set(next: InspectorState) {
  state = next;
  if (notifyTimer !== undefined) return;
  notifyTimer = setTimeout(() => {
    notifyTimer = undefined;
    for (const listener of listeners) listener();
  }, RENDER_INTERVAL_MS);
}

function push(row: Omit<InspectorRow, 'key'>, totals = state.totals) {
  const rows = [...state.rows, { ...row, key: nextKey++ }];
  set({ rows: rows.length > MAX_ROWS ? rows.slice(-MAX_ROWS) : rows, totals });
}

const shortPath = (path: string) =>
  path.replace(/^\/api/, '').replace(/[0-9a-f]{8}-[0-9a-f-]{27}/gi, (id) => `${id.slice(0, 8)}…`);

function onEvent(event: WireEvent) {
  const totals = state.totals;
  switch (event.kind) {
    case 'request': {
      const resume = event.after === null ? '' : ` (resume after ${event.after})`;
      push(
        {
          at: event.at,
          tone: 'request',
          text: `→ ${event.method} ${shortPath(event.path)}${resume}`,
        },
        {
          ...totals,
          requests: totals.requests + 1,
          lastAfter: event.after ?? totals.lastAfter,
        },
      );
      return;
    }
    case 'response':
      push({
        at: event.at,
        tone: event.status < 400 ? 'ok' : 'warn',
        text: `← ${event.status} ${shortPath(event.path)}`,
      });
      return;
    case 'failed':
      push({ at: event.at, tone: 'warn', text: `✕ ${shortPath(event.path)}: ${event.message}` });
      return;
    case 'offsets': {
      const count = event.offsets.length;
      const from = event.offsets[0]!;
      const to = event.offsets[count - 1]!;
      const next = {
        ...totals,
        replayed: totals.replayed + (event.replayed ? count : 0),
        live: totals.live + (event.replayed ? 0 : count),
        lastOffset: Math.max(totals.lastOffset, to),
      };
      const last = state.rows[state.rows.length - 1];
      if (!event.replayed && last?.tone === 'live' && last.to === from - 1) {
        const merged = { ...last, to, count: last.count! + count, text: liveText(last.from!, to) };
        set({ rows: [...state.rows.slice(0, -1), merged], totals: next });
        return;
      }
      push(
        {
          at: event.at,
          tone: event.replayed ? 'replay' : 'live',
          from,
          to,
          count,
          text: event.replayed
            ? `⟲ replayed ${count} ${count === 1 ? 'event' : 'events'}: offsets ${from}–${to}`
            : liveText(from, to),
        },
        next,
      );
      return;
    }
    case 'end':
      push(
        {
          at: event.at,
          tone: event.reason === 'dropped' ? 'warn' : 'info',
          text:
            event.reason === 'dropped'
              ? '✕ stream dropped'
              : event.reason === 'complete'
                ? '■ stream closed by the server'
                : '■ stream closed by the client',
        },
        event.reason === 'dropped' ? { ...totals, drops: totals.drops + 1 } : totals,
      );
      return;
    case 'run':
      push({ at: event.at, tone: 'info', text: `run ${event.runId.slice(0, 8)}… started` });
      return;
    case 'network':
      push({
        at: event.at,
        tone: event.online ? 'ok' : 'warn',
        text: `network ${event.online ? 'online' : 'offline'}`,
      });
      return;
  }
}

function liveText(from: number, to: number) {
  return from === to ? `● live: offset ${from}` : `● live: offsets ${from}–${to}`;
}

onWire(onEvent);

export const inspectorLog = {
  get: () => state,
  subscribe(listener: () => void) {
    listeners.add(listener);
    return () => listeners.delete(listener);
  },
  /** A fact from the client core (a phase change and its reason). */
  note(text: string, tone: RowTone = 'info') {
    push({ at: Date.now(), tone, text });
  },
  clear() {
    set({
      rows: [],
      totals: { replayed: 0, live: 0, requests: 0, drops: 0, lastAfter: null, lastOffset: 0 },
    });
  },
};

export function useInspectorLog(): InspectorState {
  return useSyncExternalStore(inspectorLog.subscribe, inspectorLog.get);
}
