import { ResumableError } from '@resumable/protocol';
import { type Context, Hono, type MiddlewareHandler } from 'hono';
import { authorizeOrThrow } from '../auth.js';
import { MAX_FILE_NAME } from '../defaults.js';
import { fileRef, fileUrl } from '../files/references.js';
import { sniffStream } from '../files/sniff.js';
import { UploadRate, type UploadRateLimits } from '../files/upload-rate.js';
import type { FileStore, StoredFile } from '../stores/types.js';
import type { RouteContext } from './context.js';
import { bodyChunks, declaredLength, refuseDeclared } from './request-body.js';

export interface FileLimits {
  files: FileStore;
  /** Largest file, in bytes. */
  maxFileBytes: number;
  /** Most bytes of files one thread may hold. */
  maxThreadBytes: number;
  /** Content types accepted (after sniffing). */
  allowedTypes: readonly string[];
  /** The routes' mount point, for the file URLs. */
  basePath: string;
  /** Uploads per minute per client address and per thread, and bytes per address. */
  rate: UploadRateLimits;
}

/** `POST /threads/:id/files?name=` (raw bytes) and `GET /threads/:id/files/:fileId`. */
export function fileRoutes(
  ctx: RouteContext,
  options: FileLimits & { clientAddress: (c: Context) => string },
): Hono {
  const routes = new Hono();
  const allowed = new Set(options.allowedTypes);
  const rate = new UploadRate(options.rate, ctx.store.counters);

  const tooLarge = () =>
    new ResumableError(
      'payload_too_large',
      `the file is over the limit of ${options.maxFileBytes} bytes`,
    );

  // Refusals in the order that reads the least: the thread and the token, the name, the
  // rate limits, then the body (its declared size first), and only then the bytes.
  routes.post('/threads/:threadId/files', async (c) => {
    const threadId = c.req.param('threadId');
    const thread = await ctx.loadThread(threadId);
    await authorizeOrThrow(ctx.authorize, c.req.raw, { action: 'upload', threadId, thread });
    const name = nameOf(c.req.query('name'));
    // Counted before the body is read: a client over its rate costs no upload.
    const address = options.clientAddress(c);
    await rate.admit(threadId, address);
    refuseDeclared(c, options.maxFileBytes, tooLarge);
    // A body that says its size is counted against the byte budget before it is read; a
    // chunked one once it has come (it is at most maxFileBytes, which fits the budget).
    const declaredBytes = declaredLength(c.req.raw);
    if (declaredBytes !== null) await rate.admitBytes(address, declaredBytes);
    const declared = c.req.header('content-type')?.split(';')[0]?.trim().toLowerCase() ?? null;
    const body = await sniffStream(bodyChunks(c, options.maxFileBytes, tooLarge), declared);
    const { mimeType } = body;
    if (mimeType === null || !allowed.has(mimeType)) {
      throw new ResumableError(
        'unsupported_media_type',
        mimeType === null
          ? `the file's bytes are not ${declared ?? 'a known type'}`
          : `${mimeType} files are not accepted here`,
      );
    }
    const fileId = crypto.randomUUID();
    // The bytes go to the store as they arrive (the next piece is read once the last one is
    // written), apart from the thread's files until the commit below.
    const upload = options.files.upload(threadId, fileId);
    let size = 0;
    try {
      for await (const piece of body.chunks) {
        await upload.write(piece);
        size += piece.byteLength;
      }
      if (declaredBytes === null) await rate.admitBytes(address, size);
    } catch (error) {
      await upload.abort().catch(() => {});
      throw error;
    }
    const file: StoredFile = { fileId, threadId, name, mimeType, size, createdAt: Date.now() };
    // Committed under the thread guard: a delete here waits for it (and removes it), and a
    // thread deleted while the body came in is not this upload's thread.
    const committed = ctx.manager.threadGuard.start(threadId, async (current) => {
      if (current.token !== thread.token) {
        throw new ResumableError('thread_not_found', `no thread ${threadId}`);
      }
      return upload.commit(file, options.maxThreadBytes);
    });
    const stored = await committed.catch(async (error: unknown) => {
      await upload.abort().catch(() => {});
      throw error;
    });
    if (!stored) {
      throw new ResumableError(
        'payload_too_large',
        `the thread's files would be over their limit of ${options.maxThreadBytes} bytes`,
      );
    }
    // Another instance may have deleted the thread meanwhile (and made it again): its
    // files are gone, and this one must not outlive it (nor be answered 201).
    const now = await ctx.store.getThread(threadId);
    if (now?.token !== thread.token) {
      await options.files.remove(threadId, file.fileId);
      throw new ResumableError('thread_not_found', `no thread ${threadId}`);
    }
    const url = fileUrl(options.basePath, threadId, file.fileId);
    return c.json({ fileId: file.fileId, url, mimeType, size: file.size, name }, 201, {
      Location: url,
    });
  });

  routes.get('/threads/:threadId/files/:fileId', fileHeaders, async (c) => {
    const threadId = c.req.param('threadId');
    const fileId = c.req.param('fileId');
    const thread = await ctx.loadThread(threadId);
    await authorizeOrThrow(ctx.authorize, c.req.raw, { action: 'read', threadId, thread });
    const ref = fileRef(threadId, fileId);
    const found = ref ? await options.files.get(ref.threadId, ref.fileId) : null;
    if (!found) {
      throw new ResumableError('file_not_found', `thread ${threadId} has no file ${fileId}`);
    }
    const { file, bytes } = found;
    const image = file.mimeType.startsWith('image/');
    return new Response(bytes as unknown as BodyInit, {
      status: 200,
      headers: {
        'Content-Type': file.mimeType.startsWith('text/')
          ? `${file.mimeType}; charset=utf-8`
          : file.mimeType,
        'Content-Length': String(bytes.length),
        // Served from the API's origin: nothing in a file may run there.
        'Content-Security-Policy': "default-src 'none'; sandbox",
        'Cache-Control': 'private, max-age=3600',
        ...(image ? {} : { 'Content-Disposition': disposition(file.name) }),
      },
    });
  });

  return routes;
}

/**
 * On every answer of the download route, the file and its refusals alike: nothing served
 * from the API's origin is sniffed into another type, and a link a file leads to (a PDF's)
 * is not told the file's URL, which carries `?token=` for an `<img src>`.
 */
const fileHeaders: MiddlewareHandler = async (c, next) => {
  await next();
  c.res.headers.set('X-Content-Type-Options', 'nosniff');
  c.res.headers.set('Referrer-Policy', 'no-referrer');
};

/**
 * Refused in a name: path separators, control characters as Unicode has them (`Cc`: C0,
 * DEL and C1, U+0080-U+009F, where U+0085 is a line break and U+009B a terminal's escape),
 * and the bidi embeddings, overrides and isolates (U+202A-U+202E, U+2066-U+2069), which
 * make `cat\u202Egnp.exe` show as `catexe.png` wherever the name is displayed.
 */
const REFUSED_IN_NAME = /[/\\\p{Cc}\u202a-\u202e\u2066-\u2069]/u;

/** The `?name=`: 1-255 characters, none of `REFUSED_IN_NAME`. */
function nameOf(value: string | undefined): string {
  const name = value?.trim() ?? '';
  if (name === '' || [...name].length > MAX_FILE_NAME || REFUSED_IN_NAME.test(name)) {
    throw new ResumableError(
      'bad_request',
      `name must be the file's name: 1 to ${MAX_FILE_NAME} characters, without / \\, control or bidi control characters`,
    );
  }
  return name;
}

/** `attachment` with the name as RFC 6266 / 5987 says (an ASCII fallback and UTF-8). */
function disposition(name: string): string {
  const ascii = name.replace(/[^\x20-\x7e]|["\\]/g, '_');
  return `attachment; filename="${ascii}"; filename*=UTF-8''${encodeURIComponent(name)}`;
}
