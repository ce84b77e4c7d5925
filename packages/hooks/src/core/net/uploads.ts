import { errorFromBody, ResumableError } from '@resumable/protocol';
import { DEFAULT_UPLOAD_IDLE_MS, MAX_ANSWER, UPLOAD_CHUNK } from '../base/defaults.js';
import type { Attachment } from './attachment.js';
import { isAttachment } from './attachment.js';
import { type EndpointOptions, endpointApi } from './endpoint.js';
import { networkError, parseRetryAfter, readTextBounded, timeoutError } from './http.js';
import type { RunApi } from './run-api.js';

/**
 * Uploads to `POST /threads/{id}/files` (docs/protocol.md): the bytes out (XMLHttpRequest in
 * a page, for its progress events; a streamed fetch elsewhere), one answer back, checked.
 * Loaded lazily (`import()`) by `useResumableChat`'s `upload`: not on first paint.
 */

/** One file upload as the transports see it: bytes out, progress, one answer back. */
export interface UploadRequest {
  /** `POST` here: `{endpoint}/threads/{id}/files?name=…`. */
  url: string;
  /** The request's headers: the thread's token, the app's headers, the file's type. */
  headers: Record<string, string>;
  /** The file's bytes. */
  body: Blob;
  /** Called as bytes go out: how many so far of `total`. */
  onProgress?: ((loaded: number, total: number) => void) | undefined;
  /** Aborts the upload (it rejects with `aborted`). */
  signal?: AbortSignal | undefined;
  /** No progress and no answer for this long ends the upload with `timeout`. */
  idleTimeoutMs: number;
}

/** The answer, not yet judged: status, its type and at most `MAX_ANSWER` characters. */
export interface UploadAnswer {
  /** The HTTP status. */
  status: number;
  /** The `Content-Type` header ('' when absent). */
  contentType: string;
  /** The body's text; '' when it was longer than an answer of the server's can be. */
  text: string;
  /** The `Retry-After` header, unparsed. */
  retryAfter: string | null;
}

/**
 * How an upload's bytes go out and its answer comes back: `xhrTransport` (progress in a
 * page), `fetchTransport` (a streamed body), or an app's own (a test's, a native bridge).
 */
export type UploadTransport = (request: UploadRequest) => Promise<UploadAnswer>;

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

/** The name a file is uploaded under: the caller's, the `File`'s own, else `file`. */
export function fileName(file: Blob, name?: string): string {
  const own = (file as { name?: unknown }).name;
  return name ?? (typeof own === 'string' && own !== '' ? own : 'file');
}

/** One upload: its file name, progress callback and abort signal. */
export interface UploadOptions {
  /** The file name the server keeps (a `File`'s own name by default). */
  name?: string;
  /** Bytes sent so far of `total`, as the browser reports them. */
  onProgress?: (loaded: number, total: number) => void;
  /** Aborts the upload: it rejects with `aborted`. */
  signal?: AbortSignal;
}

/** `uploadFile`'s options: one upload's, and how its bytes go out. */
export interface UploadFileOptions extends UploadOptions {
  /** How the bytes go out. @default XMLHttpRequest in a page, a streamed fetch elsewhere */
  transport?: UploadTransport;
  /** No progress and no answer for this long ends the upload with `timeout`. @default 30000 */
  idleTimeoutMs?: number;
}

/**
 * Uploads `file` to the thread (`POST /threads/{id}/files`); resolves with what a prompt
 * references. A refusal rejects with the server's typed error (`413 payload_too_large`,
 * `415 unsupported_media_type`, …), anything else with `unexpected_response`.
 *
 * @example
 * ```ts
 * const server = { endpoint: '/api' };
 * const thread = await createThread(server);
 * const attachment = await uploadFile(server, thread, file, {
 *   onProgress: (loaded, total) => console.log(`${loaded} of ${total} bytes`),
 * });
 * ```
 */
export function uploadFile(
  server: EndpointOptions,
  thread: { threadId: string; token: string | null },
  file: Blob,
  options: UploadFileOptions = {},
): Promise<Attachment> {
  return sendFile(endpointApi(server), thread, file, options);
}

/** `uploadFile` with a session's own calls (its fetch, headers and timeouts). */
export async function sendFile(
  api: RunApi,
  thread: { threadId: string; token: string | null },
  file: Blob,
  options: UploadFileOptions = {},
): Promise<Attachment> {
  const { threadId, token } = thread;
  const name = fileName(file, options.name);
  const url = `${api.endpoint}/threads/${encodeURIComponent(threadId)}/files?name=${encodeURIComponent(name)}`;
  const headers = {
    ...(await api.headers(token, { threadId })),
    Accept: 'application/json',
    'Content-Type': file.type || 'application/octet-stream',
  };
  const transport = options.transport ?? defaultUploadTransport(api.fetch);
  const answer = await transport({
    url,
    headers,
    body: file,
    onProgress: options.onProgress,
    signal: options.signal,
    idleTimeoutMs: options.idleTimeoutMs ?? DEFAULT_UPLOAD_IDLE_MS,
  });
  return attachmentOf(answer, url);
}

function parseJson(answer: UploadAnswer): unknown {
  if (!/^application\/(.+\+)?json\b/i.test(answer.contentType.trim())) return null;
  if (answer.text.length > MAX_ANSWER) return null;
  try {
    return JSON.parse(answer.text);
  } catch {
    return null;
  }
}

/**
 * The upload's answer, checked: a `201` naming the file (string ids, URL, type, a size
 * that is a safe integer), or the server's own error; anything else `unexpected_response`.
 */
export function attachmentOf(answer: UploadAnswer, url: string): Attachment {
  const body = parseJson(answer);
  if (answer.status !== 201 && answer.status !== 200) {
    throw errorFromBody(answer.status, body, parseRetryAfter(answer.retryAfter, Date.now()));
  }
  if (!isAttachment(body)) {
    throw new ResumableError('unexpected_response', `upload to ${url} answered without its file`, {
      status: answer.status,
    });
  }
  const { fileId, url: fileUrl, mimeType, size, name } = body;
  return { fileId, url: fileUrl, mimeType, size, name };
}
