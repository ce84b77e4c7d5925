import { ResumableError } from '@resumable/protocol';
import { networkError, readTextBounded, timeoutError } from './http.js';

/** One file upload as the transports see it: bytes out, progress, one answer back. */
export interface UploadRequest {
  url: string;
  headers: Record<string, string>;
  body: Blob;
  onProgress?: ((loaded: number, total: number) => void) | undefined;
  signal?: AbortSignal | undefined;
  /** No progress and no answer for this long ends the upload with `timeout`. */
  idleTimeoutMs: number;
}

/** The answer, not yet judged: status, its type and at most `MAX_ANSWER` characters. */
export interface UploadAnswer {
  status: number;
  contentType: string;
  text: string;
  retryAfter: string | null;
}

export type UploadTransport = (request: UploadRequest) => Promise<UploadAnswer>;

/** The answer to an upload is small JSON; anything longer is not the server's. */
export const MAX_ANSWER = 64 * 1024;

/**
 * A timer that ends the upload when nothing happens for `ms`: reset by every progress
 * report, so a large file on a slow link is not cut while bytes still move.
 */
function idleTimer(ms: number, onIdle: () => void) {
  let timer = setTimeout(onIdle, ms);
  return {
    poke() {
      clearTimeout(timer);
      timer = setTimeout(onIdle, ms);
    },
    stop: () => clearTimeout(timer),
  };
}

/**
 * XMLHttpRequest: the one browser API that reports upload progress over HTTP/1.1.
 * (Chromium refuses a streamed fetch request body unless the connection is HTTP/2 or
 * QUIC, so the fetch transport below cannot measure uploads to a plain HTTP/1.1 server.)
 */
export function xhrTransport(XHR: typeof XMLHttpRequest): UploadTransport {
  return (request) =>
    new Promise<UploadAnswer>((resolve, reject) => {
      const xhr = new XHR();
      let failure: ResumableError | null = null;
      const fail = (error: ResumableError) => {
        failure ??= error;
        xhr.abort();
      };
      const idle = idleTimer(request.idleTimeoutMs, () =>
        fail(timeoutError(`upload to ${request.url}`, request.idleTimeoutMs)),
      );
      const onAbort = () => fail(new ResumableError('aborted', 'upload aborted'));
      const done = () => {
        idle.stop();
        request.signal?.removeEventListener('abort', onAbort);
      };
      xhr.open('POST', request.url);
      for (const [name, value] of Object.entries(request.headers)) {
        xhr.setRequestHeader(name, value);
      }
      xhr.upload.onprogress = (e) => {
        idle.poke();
        request.onProgress?.(e.loaded, e.lengthComputable ? e.total : request.body.size);
      };
      const answer = (text: string): UploadAnswer => ({
        status: xhr.status,
        contentType: xhr.getResponseHeader('Content-Type') ?? '',
        text,
        retryAfter: xhr.getResponseHeader('Retry-After'),
      });
      // The answer's bytes do not reset the idle timer (as with fetch): one that trickles
      // forever ends in `timeout`. One longer than the answer's bound is not the server's
      // and is not buffered further (XMLHttpRequest keeps all of it): judged as not JSON.
      xhr.onprogress = (e) => {
        if (e.loaded <= MAX_ANSWER) return;
        done();
        resolve(answer(''));
        xhr.abort();
      };
      xhr.onload = () => {
        done();
        resolve(answer(xhr.responseText.slice(0, MAX_ANSWER + 1)));
      };
      xhr.onerror = () => {
        done();
        reject(failure ?? networkError(new Error('upload failed')));
      };
      xhr.onabort = () => {
        done();
        reject(failure ?? new ResumableError('aborted', 'upload aborted'));
      };
      if (request.signal?.aborted) return onAbort();
      request.signal?.addEventListener('abort', onAbort, { once: true });
      xhr.send(request.body);
    });
}

/** Bytes per read of the file: the grain of the fetch transport's progress reports. */
export const UPLOAD_CHUNK = 64 * 1024;

/**
 * fetch with a streamed body (`duplex: 'half'`), for runtimes without XMLHttpRequest
 * (Node, workers): progress is counted as the request pulls each 64 KiB slice.
 */
export function fetchTransport(fetchFn: typeof fetch): UploadTransport {
  return async (request) => {
    const local = new AbortController();
    let failure: ResumableError | null = null;
    const fail = (error: ResumableError) => {
      failure ??= error;
      local.abort();
    };
    const idle = idleTimer(request.idleTimeoutMs, () =>
      fail(timeoutError(`upload to ${request.url}`, request.idleTimeoutMs)),
    );
    const onAbort = () => fail(new ResumableError('aborted', 'upload aborted'));
    if (request.signal?.aborted) onAbort();
    request.signal?.addEventListener('abort', onAbort, { once: true });
    const { body } = request;
    let sent = 0;
    const stream = new ReadableStream<Uint8Array>({
      async pull(controller) {
        if (sent >= body.size) return controller.close();
        const chunk = new Uint8Array(await body.slice(sent, sent + UPLOAD_CHUNK).arrayBuffer());
        sent += chunk.byteLength;
        controller.enqueue(chunk);
        idle.poke();
        request.onProgress?.(sent, body.size);
      },
    });
    try {
      const response = await fetchFn(request.url, {
        method: 'POST',
        headers: request.headers,
        body: stream,
        signal: local.signal,
        duplex: 'half',
      } as RequestInit);
      const text = await readTextBounded(response, MAX_ANSWER);
      return {
        status: response.status,
        contentType: response.headers.get('Content-Type') ?? '',
        // Too long to be the server's answer: judged as not JSON.
        text: text ?? '',
        retryAfter: response.headers.get('Retry-After'),
      };
    } catch (error) {
      throw failure ?? (error instanceof ResumableError ? error : networkError(error));
    } finally {
      idle.stop();
      request.signal?.removeEventListener('abort', onAbort);
    }
  };
}

/** XMLHttpRequest where the page has it (browsers), else the streamed fetch. */
export function defaultUploadTransport(fetchFn: typeof fetch): UploadTransport {
  const XHR = (globalThis as { XMLHttpRequest?: typeof XMLHttpRequest }).XMLHttpRequest;
  return XHR ? xhrTransport(XHR) : fetchTransport(fetchFn);
}
