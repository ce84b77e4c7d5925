import type { ResumableError } from '@resumable/protocol';
import type { Context } from 'hono';

/** Set by a route once it has read the whole request body. */
export const BODY_READ = 'resumableBodyRead';

/** The request's `Content-Length`, or null without one (a chunked body). */
export function declaredLength(request: Request): number | null {
  const header = request.headers.get('content-length');
  if (header === null || request.headers.has('transfer-encoding')) return null;
  const length = Number(header);
  return Number.isSafeInteger(length) && length >= 0 ? length : null;
}

/** Whether the request carries a body at all (a length other than 0, or chunks). */
export function hasBody(request: Request): boolean {
  const length = request.headers.get('content-length');
  if (length !== null) return length !== '0';
  return request.headers.has('transfer-encoding');
}

/** `413 payload_too_large` for a body over `max` bytes. */
export type TooLarge = () => ResumableError;

/**
 * Refuses (`413`) from the headers alone a body that says it is over `max` bytes: the
 * route never reads it.
 */
export function refuseDeclared(c: Context, max: number, tooLarge: TooLarge): void {
  const declared = declaredLength(c.req.raw);
  if (declared !== null && declared > max) throw tooLarge();
}

/**
 * The body's bytes as they arrive, at most `max` of them: past it the route's `413` is
 * thrown while the rest is still on its way, so nothing larger is ever held. Read only
 * once the request may be answered otherwise than with a refusal from its headers (the
 * routes authenticate and apply their rate limits first). Marks the body read at its end.
 *
 * A body left unread is released, never cancelled: cancelling a Node request's stream
 * destroys its socket under the answer, and the client reads a reset instead of the
 * `413`. The server reads and drops the rest after answering (`startServer`).
 */
export async function* bodyChunks(
  c: Context,
  max: number,
  tooLarge: TooLarge,
): AsyncGenerator<Uint8Array> {
  refuseDeclared(c, max, tooLarge);
  const body = c.req.raw.body;
  if (!body) {
    c.set(BODY_READ as never, true as never);
    return;
  }
  const reader = body.getReader();
  let size = 0;
  try {
    for (;;) {
      const step = await reader.read();
      if (step.done) break;
      size += step.value.byteLength;
      if (size > max) throw tooLarge();
      yield step.value;
    }
    c.set(BODY_READ as never, true as never);
  } finally {
    reader.releaseLock();
  }
}

/** The whole body, at most `max` bytes (`bodyChunks`), as one array. */
export async function bodyBytes(c: Context, max: number, tooLarge: TooLarge): Promise<Uint8Array> {
  const chunks: Uint8Array[] = [];
  for await (const chunk of bodyChunks(c, max, tooLarge)) chunks.push(chunk);
  return Buffer.concat(chunks);
}

/** The whole body as UTF-8 text (a JSON route's), at most `max` bytes. */
export async function bodyText(c: Context, max: number, tooLarge: TooLarge): Promise<string> {
  return new TextDecoder().decode(await bodyBytes(c, max, tooLarge));
}
