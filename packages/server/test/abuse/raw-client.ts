import { connect } from 'node:net';

/** What one raw request saw: every byte answered, and whether its own writes all went out. */
export interface RawResult {
  /** Everything the server sent, as latin1 text. */
  text: string;
  /** The socket error the client met (`EPIPE`, `ECONNRESET`), or null for a clean close. */
  error: string | null;
  /** Milliseconds from the end of the request's headers to the first byte of the answer. */
  answeredAfterMs: number | null;
  /** Whether every byte of the body (and what followed it) was written without error. */
  sentAll: boolean;
  /** The server had not closed the connection by `timeoutMs` (the client closed it). */
  timedOut: boolean;
}

export interface RawRequest {
  /** The request line and headers, without the blank line that ends them. */
  head: string;
  /** Body bytes to send after the headers (zeros unless `fill`). */
  bodyBytes: number;
  /** Send the body as chunked transfer coding (the head must say so). */
  chunked?: boolean;
  /** Written after the body, on the same connection (a pipelined request). */
  after?: string;
  /** Pause between pieces of the body; 0 writes as fast as the socket takes them. */
  paceMs?: number;
  /** Size of each piece of the body. @default 64 KiB */
  pieceBytes?: number;
  /** How long to wait for the server to close, at most. */
  timeoutMs?: number;
  fill?: number;
  /** The body's first bytes (a file's signature), then `fill` up to `bodyBytes`. */
  start?: Uint8Array;
}

const PIECE = 64 * 1024;

/**
 * Sends one request over a raw socket the way a plain client does — the whole body, as
 * fast as the server takes it (or paced), then waits for the server to close — and
 * reports what it read and whether its writes met a reset. The body is one reused buffer:
 * the client's memory does not grow with the body.
 */
export function rawRequest(port: number, request: RawRequest): Promise<RawResult> {
  const piece = Buffer.alloc(request.pieceBytes ?? PIECE, request.fill ?? 0);
  return new Promise((resolve) => {
    const socket = connect(port, '127.0.0.1');
    const chunks: Buffer[] = [];
    let error: string | null = null;
    let headersAt = 0;
    let answeredAt: number | null = null;
    let sentAll = false;
    let sent = 0;
    let timedOut = false;
    const timer = setTimeout(() => {
      timedOut = true;
      socket.destroy();
    }, request.timeoutMs ?? 10_000);
    socket.on('data', (chunk: Buffer) => {
      answeredAt ??= Date.now();
      chunks.push(chunk);
    });
    socket.on('error', (e: NodeJS.ErrnoException) => {
      error ??= e.code ?? e.message;
    });
    socket.on('close', () => {
      clearTimeout(timer);
      resolve({
        text: Buffer.concat(chunks).toString('latin1'),
        error,
        answeredAfterMs: answeredAt === null ? null : answeredAt - headersAt,
        sentAll,
        timedOut,
      });
    });
    const finish = () => {
      const tail = `${request.chunked ? '0\r\n\r\n' : ''}${request.after ?? ''}`;
      socket.write(tail, (e) => {
        if (!e) sentAll = true;
      });
      socket.end();
    };
    const pump = () => {
      while (sent < request.bodyBytes && !socket.destroyed) {
        const size = Math.min(piece.length, request.bodyBytes - sent);
        const body =
          sent === 0 && request.start
            ? Buffer.concat([request.start, piece.subarray(request.start.length, size)])
            : piece.subarray(0, size);
        sent += size;
        const more = request.chunked
          ? socket.write(Buffer.concat([Buffer.from(`${size.toString(16)}\r\n`), body, CRLF]))
          : socket.write(body);
        if (request.paceMs) {
          setTimeout(pump, request.paceMs);
          return;
        }
        if (!more) {
          socket.once('drain', pump);
          return;
        }
      }
      if (!socket.destroyed) finish();
    };
    socket.write(`${request.head}\r\n\r\n`);
    headersAt = Date.now();
    pump();
  });
}

const CRLF = Buffer.from('\r\n');

/** The responses in `text`, in order: status, lower-cased headers and body of each. */
export function responsesOf(
  text: string,
): Array<{ status: number; headers: Map<string, string>; body: string }> {
  const responses = [];
  let rest = text;
  while (rest.startsWith('HTTP/1.1 ')) {
    const end = rest.indexOf('\r\n\r\n');
    if (end === -1) break;
    const [statusLine = '', ...lines] = rest.slice(0, end).split('\r\n');
    const headers = new Map<string, string>();
    for (const line of lines) {
      const colon = line.indexOf(':');
      headers.set(line.slice(0, colon).trim().toLowerCase(), line.slice(colon + 1).trim());
    }
    const length = Number(headers.get('content-length') ?? 0);
    const body = rest.slice(end + 4, end + 4 + length);
    responses.push({ status: Number(statusLine.split(' ')[1]), headers, body });
    rest = rest.slice(end + 4 + length);
  }
  return responses;
}
