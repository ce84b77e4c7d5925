import {
  existsIn,
  immutableJSONPatch,
  type JSONPatchOperation,
  parseJSONPointer,
} from 'immutable-json-patch';
import { ResumableError } from './errors.js';

/**
 * Applies an RFC 6902 patch without writing `document`: the patched document, or a
 * `bad_patch` error value when it does not apply.
 */
export type JsonPatcher = (document: unknown, patch: readonly unknown[]) => unknown;

/**
 * RFC 6902 through immutable-json-patch: the input is never touched (the fold is pure) and
 * unchanged branches are shared rather than deep-cloned. The library is lenient where the
 * RFC is strict (removing a missing member succeeds there), so each operation's target is
 * checked first. A patch that does not apply, or that would reach an object's prototype, is
 * returned whole as a `bad_patch` error value (nothing of it is applied).
 */
export function applyJsonPatch(document: unknown, patch: readonly unknown[]): unknown {
  try {
    let doc = document === undefined ? {} : document;
    for (const op of patch) {
      const checked = checkOperation(doc, op);
      doc = immutableJSONPatch(doc, [checked]);
    }
    return doc;
  } catch (cause) {
    return new ResumableError('bad_patch', `JSON Patch failed: ${(cause as Error).message}`, {
      cause,
    });
  }
}

const PROTOTYPE_KEYS = new Set(['__proto__', 'constructor', 'prototype']);

function checkOperation(doc: unknown, op: unknown): JSONPatchOperation {
  if (typeof op !== 'object' || op === null) throw new Error('operation is not an object');
  const { op: kind, path, from } = op as { op?: unknown; path?: unknown; from?: unknown };
  if (typeof path !== 'string') throw new Error('operation has no path');
  const target = pointer(path);
  const source = kind === 'move' || kind === 'copy' ? pointer(from) : null;
  // Removing, replacing or testing needs the target; moving or copying needs the source;
  // adding needs the target's parent.
  if ((kind === 'remove' || kind === 'replace') && !existsIn(doc, target)) {
    throw new Error(`path not found: ${path}`);
  }
  if (source && !existsIn(doc, source)) throw new Error(`from not found: ${String(from)}`);
  if ((kind === 'add' || kind === 'move' || kind === 'copy') && target.length > 0) {
    if (!existsIn(doc, target.slice(0, -1))) throw new Error(`parent not found: ${path}`);
  }
  return op as JSONPatchOperation;
}

function pointer(value: unknown): string[] {
  if (typeof value !== 'string') throw new Error('operation has no from');
  if (value !== '' && !value.startsWith('/')) throw new Error(`not a JSON pointer: ${value}`);
  const path = parseJSONPointer(value);
  if (path.some((key) => PROTOTYPE_KEYS.has(key))) {
    throw new Error(`operation reaches a prototype: ${value}`);
  }
  return path;
}
