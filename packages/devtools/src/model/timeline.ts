import type { ObservedEvent } from '@resumable/hooks/observe';
import type { ConversationView, TimelineRow } from './views.js';

/**
 * The timeline: one line per thing the client did, in order, as a developer reads it —
 * requests with their `after=`, what the first read caught up and the live offsets (one
 * growing row per run), phase moves with their reason, retries with their wait. Record
 * writes make no row (they come four times a second); a failed one does.
 */

/** Ids in a path, cut to their first 8 characters. */
export function shortIds(path: string): string {
  return path.replace(/[0-9A-Za-z_-]{20,}/g, (id) => `${id.slice(0, 8)}…`);
}

/** The URL past the conversation's endpoint (`/runs/…/events?after=12`). */
export function pathOf(url: string, endpoint: string): string {
  if (url.startsWith(endpoint)) return url.slice(endpoint.length) || '/';
  try {
    const parsed = new URL(url, 'http://page.invalid');
    return `${parsed.pathname}${parsed.search}`;
  } catch {
    return url;
  }
}

const seconds = (ms: number) => `${(ms / 1000).toFixed(ms < 10_000 ? 2 : 1)} s`;

export function liveText(from: number, to: number): string {
  return from === to ? `● live: offset ${from}` : `● live: offsets ${from}–${to}`;
}

/** The row `event` adds to `c`'s timeline, or null. */
export function timelineRow(c: ConversationView, event: ObservedEvent): TimelineRow | null {
  const { seq, at } = event;
  const row = (tone: TimelineRow['tone'], text: string): TimelineRow => ({ seq, at, tone, text });
  switch (event.type) {
    case 'conversation': {
      const moved = event.before === null ? '' : ` · from run ${shortIds(event.before)}`;
      const run = event.run === null ? '' : ` · run ${shortIds(event.run)}`;
      const effects = event.effects.length > 0 ? ` → ${event.effects.join(', ')}` : '';
      return row(
        event.to === 'deleted' ? 'warn' : 'info',
        `conversation · ${event.from} → ${event.to} (${event.input})${run}${moved}${effects}`,
      );
    }
    case 'phase': {
      let text = `${event.connection} · ${event.from} → ${event.to} (${event.event})`;
      if (event.nextRetryAt !== null) {
        text += ` · attempt ${event.attempt}, next in ${seconds(Math.max(0, event.nextRetryAt - at))}`;
      }
      if (event.error) text += ` · ${event.error.code}: ${event.error.message}`;
      const trouble = ['waiting', 'offline', 'failed'].includes(event.to) || event.error !== null;
      return row(trouble ? 'warn' : 'info', text);
    }
    case 'run':
      return row(
        'info',
        event.how === 'restored'
          ? `run ${shortIds(event.runId)} restored from its record at offset ${event.offset} (${event.status})`
          : `run ${shortIds(event.runId)} ${event.how}`,
      );
    case 'request': {
      return row('request', `→ ${event.method} ${shortIds(pathOf(event.url, event.endpoint))}`);
    }
    case 'response': {
      const request = c.requests.find((r) => r.id === event.id);
      const what = request ? `${request.method} ${shortIds(request.path)}` : `#${event.id}`;
      if (event.status === null) {
        return row('warn', `✕ ${what}: ${event.error?.code ?? 'failed'} (${event.ms} ms)`);
      }
      const why = event.error ? ` ${event.error.code}` : '';
      return row(
        event.status < 400 && !event.error ? 'ok' : 'warn',
        `← ${event.status}${why} ${what} (${event.ms} ms)`,
      );
    }
    case 'events': {
      const count = event.envelopes.length;
      if (count === 0) return null;
      const from = event.envelopes[0]!.offset;
      const to = event.envelopes[count - 1]!.offset;
      if (event.first) {
        const noun = count === 1 ? 'event' : 'events';
        const span = from === to ? `offset ${from}` : `offsets ${from}–${to}`;
        return { ...row('catch-up', `⟲ caught up ${count} ${noun}: ${span}`), from, to, count };
      }
      return { ...row('live', liveText(from, to)), live: event.runId, from, to, count };
    }
    case 'stream-end': {
      const how =
        event.outcome === 'ended'
          ? 'closed by the server'
          : event.outcome === 'aborted'
            ? 'closed by the client'
            : `dropped: ${event.error?.code ?? event.outcome}`;
      const tone = event.outcome === 'ended' || event.outcome === 'aborted' ? 'info' : 'warn';
      return row(tone, `■ stream ${how} after ${seconds(event.ms)}, ${event.events} events`);
    }
    case 'retry': {
      const after = event.retryAfter === null ? '' : ` (Retry-After ${event.retryAfter} s)`;
      if (event.delay === null) {
        return row(
          'warn',
          `✕ ${event.path} gave up at attempt ${event.attempt} (${event.gaveUp}): ${event.error.code}`,
        );
      }
      return row(
        'warn',
        `↻ ${event.path} retry ${event.attempt} in ${seconds(event.delay)}${after} · ${event.error.code}`,
      );
    }
    case 'storage':
      return event.reason
        ? row('warn', `storage: memory — ${event.reason.message}`)
        : row(
            event.storage === 'memory' ? 'warn' : 'info',
            `storage: ${event.storage === 'indexeddb' ? 'IndexedDB' : 'memory (lost on reload)'}`,
          );
    case 'write':
      return event.error ? row('warn', `✕ record write failed: ${event.error.message}`) : null;
    case 'snapshot':
      return row('info', `⇩ server snapshot: offset ${event.offset}, ${event.status}`);
    case 'role':
      return row(
        'info',
        event.role === 'follower'
          ? 'tabs: follower — another tab holds the stream'
          : event.role === 'pending'
            ? 'tabs: electing a leader'
            : `tabs: ${event.role} — this tab holds the stream`,
      );
    case 'outbox': {
      const waiting = event.outbox.length;
      const item = event.runId ? ` ${shortIds(event.runId)}` : '';
      const failed = event.outbox.find((o) => o.runId === event.runId)?.error;
      const text = `outbox: ${event.move}${item} · ${waiting} waiting${failed ? ` · ${failed.code}` : ''}`;
      return row(
        event.move === 'failed' || event.move === 'continuationRefused' ? 'warn' : 'info',
        text,
      );
    }
    case 'interrupts': {
      const open = event.interrupts.filter((i) => i.status === 'open').length;
      const before = c.interrupts.filter((i) => i.status === 'open').length;
      if (open === before && c.interrupts.length === event.interrupts.length) return null;
      return row('info', `interrupts: ${open} open of ${event.interrupts.length}`);
    }
  }
}
