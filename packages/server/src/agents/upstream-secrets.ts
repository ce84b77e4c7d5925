import { MIN_SECRET_CHARS } from '../defaults.js';

/**
 * A run's error message is stored and shown to every reader of its thread (the end user,
 * not the operator): the operator's secrets for an upstream (an API key in its URL or in a
 * header) must never be in it, neither from our own description of the upstream nor quoted
 * from an upstream that echoes the request back.
 */

/** Headers whose values say nothing secret (the rest may carry a key). */
const PLAIN_HEADERS = new Set(['accept', 'content-type']);

/** An upstream URL as shown in messages: origin and path, never its query or credentials. */
export function describeUrl(url: string): string {
  try {
    const parsed = new URL(url);
    return `${parsed.origin}${parsed.pathname.replace(/\/+$/, '')}`;
  } catch {
    return 'an unparsable URL';
  }
}

/**
 * Replaces with `[redacted]` the secrets of a request to `url` with `headers` in any text:
 * its query values and user info, and its header values (other than Accept and
 * Content-Type), whole and with an auth scheme (`Bearer …`) taken off.
 */
export function redactor(url: string, headers: HeadersInit | undefined): (text: string) => string {
  const secrets = new Set<string>();
  try {
    const parsed = new URL(url);
    for (const value of parsed.searchParams.values()) secrets.add(value);
    secrets.add(decodeURIComponent(parsed.username));
    secrets.add(decodeURIComponent(parsed.password));
  } catch {
    // No URL, no secrets in it.
  }
  for (const [name, value] of new Headers(headers)) {
    if (PLAIN_HEADERS.has(name)) continue;
    secrets.add(value);
    const token = /^\S+\s+(\S+)$/.exec(value.trim())?.[1];
    if (token) secrets.add(token);
  }
  // Longest first: a key inside a longer header value is replaced with the whole value.
  const listed = [...secrets]
    .filter((s) => s.length >= MIN_SECRET_CHARS)
    .sort((a, b) => b.length - a.length);
  return (text) => listed.reduce((out, secret) => out.replaceAll(secret, '[redacted]'), text);
}
