// The fold's bounded lists (warnings, synthesized STARTs): the latest entries, counted apart.

/**
 * `list` plus `item`. The base's list is copied once per batch (then appended to in place)
 * and cut back to the `max` most recent whenever it reaches twice that, so a batch joining
 * 30k unknown ids neither copies per entry nor grows a 30k-entry array; `finish` cuts it to
 * `max` (`keepRecent`).
 */
export function appendRecent<T>(list: readonly T[], base: readonly T[], item: T, max: number): T[] {
  const own = (list === base ? base.slice() : list) as T[];
  own.push(item);
  if (own.length >= 2 * max) own.splice(0, own.length - max);
  return own;
}

/** Cuts the batch's own copy of a list to its `max` most recent (the base's is never written). */
export function keepRecent(list: readonly unknown[], base: readonly unknown[], max: number): void {
  if (list !== base && list.length > max) (list as unknown[]).splice(0, list.length - max);
}
