import type { Envelope } from './events.js';

/** The heartbeat a live stream sends while idle: an SSE comment every client ignores. */
export const PING_FRAME = ': ping\n\n';

/** Heartbeat period the reference server uses; clients treat 2× this without bytes as a stall. */
export const HEARTBEAT_MS = 15_000;

/** The response headers of an event stream (no caching, no proxy buffering). */
export const SSE_HEADERS: Readonly<Record<string, string>> = {
  'Content-Type': 'text/event-stream; charset=utf-8',
  'Cache-Control': 'no-cache, no-transform',
  Connection: 'keep-alive',
  'X-Accel-Buffering': 'no',
};

/**
 * One SSE frame per event: `id:` is the offset, `data:` the AG-UI JSON on one line.
 * JSON.stringify never emits a raw newline, so one `data:` line is always enough.
 */
export function encodeFrame(envelope: Envelope): string {
  return `id: ${envelope.offset}\ndata: ${JSON.stringify(envelope.event)}\n\n`;
}

/** Frame for an event the server already holds as JSON text (stores keep it that way). */
export function encodeFrameJson(offset: number, eventJson: string): string {
  return `id: ${offset}\ndata: ${eventJson}\n\n`;
}
