import type { Envelope } from '@resumable/protocol';
import { decodeEnvelope, ResumableError } from '@resumable/protocol';
import { createParser } from 'eventsource-parser';
import { DEFAULT_MAX_EVENT_BYTES } from '../base/defaults.js';
import type { ObservedBase, ObservedScope } from '../base/observe.js';
import { notify } from '../base/observe.js';
import type { RequestTeller } from './http.js';
import { errorFromResponse, isAbort, networkError, observeRequest } from './http.js';

/**
 * How one event-stream request ended. The transport only reports; the session decides
 * what each outcome means (resume, snapshot, give up).
 */
export type StreamOutcome =
  /** The body closed. Whether that was after a terminal event is the session's call. */
  | { kind: 'ended' }
  /** 204: the run is over and nothing is after the resume point. */
  | { kind: 'no_content' }
  /** A non-2xx answer (401/403/404/409/410/429/5xx…), typed from its JSON body. */
  | { kind: 'http'; error: ResumableError }
  /** The request or the body failed: connection refused, reset, offline. */
  | { kind: 'network'; error: ResumableError }
  /** No progress (no complete event, not even a heartbeat) for `stallMs`. */
  | { kind: 'stalled'; error: ResumableError }
  /**
   * An answer that is not an event stream (a captive portal's `200 text/html`:
   * `unexpected_response`) or an event over `maxEventBytes` (`event_too_large`). The
   * events before it were delivered; the caller resumes from its resume point.
   */
  | { kind: 'invalid'; error: ResumableError }
  /** The caller aborted, or `onBatch` asked to stop. */
  | { kind: 'aborted' };

export interface StreamRequest {
  fetch: typeof fetch;
  url: string;
  /** The `after` of this request: the stream must send only offsets above it. */
  after: number;
  headers: Record<string, string>;
  /** Aborting it ends the stream with `{kind:'aborted'}`. */
  signal: AbortSignal;
  /**
   * Abort when no progress came for this long (headers, a complete event or a heartbeat;
   * bytes of an unfinished line are not progress); 0 disables.
   */
  stallMs: number;
  /**
   * Largest event (or unterminated line) buffered, in characters; beyond it the stream
   * fails with `event_too_large`. @default 4 MiB
   */
  maxEventBytes?: number;
  setTimeout(callback: () => void, ms: number): unknown;
  clearTimeout(handle: unknown): void;
  now(): number;
  /** Called once the response is a 200 event stream. */
  onOpen?(): void;
  /**
   * Every envelope decoded from the reads of the body that arrived before the next
   * macrotask, in order — so a replay, in one chunk or split across reads, is folded and
   * published once. Return `false` to close the stream (a gap: the caller reconnects from
   * its resume point). A promise (a lazy chunk the batch needs) holds the reading until it
   * settles; a rejection ends the stream like a network error.
   */
  onBatch(envelopes: Envelope[]): boolean | undefined | Promise<boolean | undefined>;
  /** Bad frames the stream survives: no offset, an offset that went backwards. */
  onWarning(error: ResumableError): void;
  /** Bytes received on the wire, per read (for the bench). */
  onBytes?(bytes: number): void;
  /** The conversation the stream is for, told to the observers (`observeClient`). */
  observe?: ObservedScope | undefined;
}

/** How an event stream (`ObservedRequest` `id`) ended, with what it delivered. */
export interface ObservedStreamEnd extends ObservedBase {
  /** An event stream ended, for whatever reason. */
  readonly type: 'stream-end';
  /** The request that opened it (`ObservedRequest.id`). */
  readonly id: number;
  /** `ended` (the body closed), `network`, `stalled`, `http`, `aborted`… */
  readonly outcome: StreamOutcome['kind'];
  /** The outcome's error (`network`, `stalled`, `http`, `invalid`), or null. */
  readonly error: ResumableError | null;
  /** From the request to the end. */
  readonly ms: number;
  /** Events delivered after the request's `after` (duplicates and redeliveries dropped). */
  readonly events: number;
  /** Bytes of body read. */
  readonly bytes: number;
}

/**
 * Opens `GET …/events` with fetch (not `EventSource`: we need the Authorization header,
 * the status code and abort) and parses it with eventsource-parser. `id:` is the offset.
 */
export async function readEventStream(request: StreamRequest): Promise<StreamOutcome> {
  const told = observeRequest(request.observe, 'GET', request.url, request.after);
  if (told === null) return readStream(request, null);
  const teller: StreamTeller = Object.assign(told, { events: 0, bytes: 0 });
  const outcome = await readStream(request, teller);
  const { endpoint, key } = teller.scope;
  notify<ObservedStreamEnd>({
    type: 'stream-end',
    endpoint,
    key,
    id: teller.id,
    outcome: outcome.kind,
    error: 'error' in outcome ? outcome.error : null,
    ms: Date.now() - teller.sent,
    events: teller.events,
    bytes: teller.bytes,
  });
  return outcome;
}

/** A stream's teller: its answer, and what it delivered. */
type StreamTeller = RequestTeller & { events: number; bytes: number };

async function readStream(
  request: StreamRequest,
  teller: StreamTeller | null,
): Promise<StreamOutcome> {
  const local = new AbortController();
  let stalled = false;
  let stopped = false;
  const onOuterAbort = () => local.abort();
  if (request.signal.aborted) return { kind: 'aborted' };
  request.signal.addEventListener('abort', onOuterAbort, { once: true });

  let stallTimer: unknown;
  let lastProgress = 0;
  /**
   * Progress: the stall is `stallMs` after the last one. One timer at a time, moved on when
   * it fires early, rather than cleared and set again per event (a token each).
   */
  const armStall = () => {
    if (request.stallMs <= 0) return;
    lastProgress = request.now();
    if (stallTimer === undefined) waitForStall(request.stallMs);
  };
  const waitForStall = (ms: number) => {
    stallTimer = request.setTimeout(() => {
      const quiet = request.now() - lastProgress;
      if (quiet < request.stallMs) {
        waitForStall(request.stallMs - quiet);
        return;
      }
      stalled = true;
      local.abort();
    }, ms);
  };
  const stallError = () =>
    new ResumableError(
      'stalled',
      `no data for ${request.stallMs} ms: the connection is presumed dead`,
    );

  try {
    armStall();
    let response: Response;
    try {
      response = await request.fetch(request.url, {
        headers: { Accept: 'text/event-stream', ...request.headers },
        signal: local.signal,
        cache: 'no-store',
      });
    } catch (error) {
      const failed: StreamOutcome = stalled
        ? { kind: 'stalled', error: stallError() }
        : isAbort(error, request.signal)
          ? { kind: 'aborted' }
          : { kind: 'network', error: networkError(error) };
      teller?.answered(null, 'error' in failed ? failed.error : null);
      return failed;
    }
    if (response.status === 204) {
      teller?.answered(204, null);
      return { kind: 'no_content' };
    }
    if (!response.ok) {
      const error = await errorFromResponse(response, request.now());
      teller?.answered(response.status, error);
      return { kind: 'http', error };
    }
    const type = response.headers.get('Content-Type') ?? '';
    if (response.status !== 200 || !/^text\/event-stream\b/i.test(type.trim())) {
      response.body?.cancel().catch(() => {});
      const error = new ResumableError(
        'unexpected_response',
        `expected an event stream, got ${response.status} "${type}"`,
        { status: response.status },
      );
      teller?.answered(response.status, error);
      return { kind: 'invalid', error };
    }
    teller?.answered(response.status, null);
    if (!response.body) return { kind: 'ended' };
    armStall();
    request.onOpen?.();

    let batch: Envelope[] = [];
    // The last offset seen in *this* response (null before the first): a regression is
    // judged against it, never against `after`.
    let lastSeen: number | null = null;
    const maxEventBytes = request.maxEventBytes ?? DEFAULT_MAX_EVENT_BYTES;
    let tooLarge: ResumableError | null = null;
    const parser = createParser({
      maxBufferSize: maxEventBytes,
      onError(error) {
        if ((error as { type?: string }).type !== 'max-buffer-size-exceeded') return;
        tooLarge ??= new ResumableError(
          'event_too_large',
          `an event or line over ${maxEventBytes} characters: the stream is dropped`,
        );
      },
      onComment() {
        // A heartbeat: the connection is alive.
        armStall();
      },
      onEvent(message) {
        armStall();
        const decoded = decodeEnvelope(message.id, message.data);
        if (decoded instanceof ResumableError) {
          request.onWarning(decoded);
          return;
        }
        const offset = decoded.offset;
        if (lastSeen !== null && offset < lastSeen) {
          // Going backwards inside one response is a server fault worth reporting.
          request.onWarning(
            new ResumableError(
              'offset_gap',
              `offset went backwards in one stream: ${offset} after ${lastSeen}`,
            ),
          );
          return;
        }
        const duplicate = offset === lastSeen;
        lastSeen = offset;
        // A duplicate delivery, or a redelivery at or below the resume point (allowed and
        // expected by the protocol; the fold ignores it too): drop quietly.
        if (duplicate || offset <= request.after) return;
        batch.push(decoded);
      },
    });
    const reader = response.body.getReader();
    const decoder = new TextDecoder();
    type Read = ReadableStreamReadResult<Uint8Array>;
    /** Feeds one read into `batch`; true when the body ended. */
    const take = (result: Read): boolean => {
      if (result.done) return true;
      request.onBytes?.(result.value.byteLength);
      if (teller) teller.bytes += result.value.byteLength;
      parser.feed(decoder.decode(result.value, { stream: true }));
      // Over the limit: what parsed before it is delivered, then the stream ends.
      return tooLarge !== null;
    };
    const read = (): Promise<Read> => {
      const next = reader.read();
      // Awaited below; this only keeps a read abandoned by a stop from going unhandled.
      next.catch(() => {});
      return next;
    };
    /** A read still in flight when the last batch was delivered. */
    let pending: Promise<Read> | null = null;
    /** The next read if it resolves before the next macrotask, else null (left pending). */
    const readBeforeNextTask = async (): Promise<Read | null> => {
      let timer: unknown;
      const tick = new Promise<null>((resolve) => {
        timer = request.setTimeout(() => resolve(null), 0);
      });
      const next = read();
      pending = next;
      const result = await Promise.race([next, tick]);
      if (result === null) return null;
      request.clearTimeout(timer);
      pending = null;
      return result;
    };
    try {
      let ended = false;
      while (!ended) {
        const first = pending ?? read();
        pending = null;
        ended = take(await first);
        // A replay split across reads (TCP segments, proxies) is folded and published once:
        // every read that is already there before the next macrotask joins this batch.
        while (!ended && batch.length > 0) {
          const next = await readBeforeNextTask();
          if (next === null) break;
          ended = take(next);
        }
        if (batch.length > 0) {
          const envelopes = batch;
          batch = [];
          if (teller) teller.events += envelopes.length;
          let go = request.onBatch(envelopes);
          if (go instanceof Promise) go = await go;
          if (go === false) {
            stopped = true;
            local.abort();
            break;
          }
        }
      }
    } catch (error) {
      if (stalled) return { kind: 'stalled', error: stallError() };
      if (stopped || isAbort(error, request.signal)) return { kind: 'aborted' };
      return { kind: 'network', error: networkError(error) };
    } finally {
      reader.cancel().catch(() => {});
    }
    if (stopped) return { kind: 'aborted' };
    if (tooLarge !== null) return { kind: 'invalid', error: tooLarge };
    return { kind: 'ended' };
  } finally {
    if (stallTimer !== undefined) request.clearTimeout(stallTimer);
    request.signal.removeEventListener('abort', onOuterAbort);
  }
}
