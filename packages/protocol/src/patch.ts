import type { Operation } from 'fast-json-patch';
// fast-json-patch is CommonJS: a default import is the one form Node ESM and bundlers share.
import jsonPatch from 'fast-json-patch';
import { ResumableError } from './errors.js';

/**
 * RFC 6902 through fast-json-patch, without touching the input (the fold is pure). A patch
 * that does not apply is returned as a `bad_patch` error value.
 */
export function applyJsonPatch(document: unknown, patch: readonly unknown[]): unknown {
  try {
    const base = document === undefined ? {} : jsonPatch.deepClone(document);
    return jsonPatch.applyPatch(base, patch as Operation[], true, true).newDocument;
  } catch (cause) {
    return new ResumableError('bad_patch', `JSON Patch failed: ${(cause as Error).message}`, {
      cause,
    });
  }
}
