const SAFE_PROTOCOL = /^(https?|ircs?|mailto|xmpp)$/i;

/**
 * The URL if it is safe to link to, else `''`: http(s), mailto, irc(s), xmpp and relative
 * URLs pass; `javascript:`, `vbscript:`, `data:` and every other scheme do not. The parser
 * has already decoded entities (`java&#x73;cript:` arrives as `javascript:`). The same rule
 * as react-markdown's `defaultUrlTransform`.
 */
export function safeUrl(url: string): string {
  const colon = url.indexOf(':');
  if (colon === -1) return url;
  // A colon after the first `/`, `?` or `#` is part of a relative URL, not a scheme.
  for (const mark of ['/', '?', '#']) {
    const at = url.indexOf(mark);
    if (at !== -1 && colon > at) return url;
  }
  return SAFE_PROTOCOL.test(url.slice(0, colon)) ? url : '';
}
