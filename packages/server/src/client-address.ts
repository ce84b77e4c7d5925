/**
 * The key every per-address limit (runs per minute, running runs, prompt bytes, uploads,
 * upload bytes, open streams) counts a request of unknown address under: they share one
 * count rather than none. No address is empty, so it names no real client.
 */
export const UNKNOWN_ADDRESS = '';

/**
 * Resolves a request's client address to its key for the per-address limits: the address,
 * or `UNKNOWN_ADDRESS` when `clientAddress` gave none (null or empty; a host that does not
 * give the socket's address), which the server logs once.
 */
export function addressKeys<C>(
  clientAddress: (context: C) => string | null,
  log: (message: string) => void,
): (context: C) => string {
  let warned = false;
  return (context) => {
    const address = clientAddress(context);
    if (address) return address;
    if (!warned) {
      warned = true;
      log(
        'a request came with no client address (set clientAddress on this host): such clients share one count in every per-address limit (runs, prompt bytes, uploads, open streams)',
      );
    }
    return UNKNOWN_ADDRESS;
  };
}

/**
 * A per-address `429` message: `did` and `have` say what the client did, in the singular
 * (`this client …`) and, for the shared unknown key, in the plural.
 */
export function overAddressLimit(key: string, did: string, have = did): string {
  return key === UNKNOWN_ADDRESS
    ? `clients of unknown address ${have}, their shared limit`
    : `this client ${did}, its limit`;
}
