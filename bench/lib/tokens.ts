/** The filler text the fold benches stream: model-like tokens from a small vocabulary. */

const words = 'the quick brown fox jumps over a lazy dog while streaming tokens arrive '.split(' ');

/** `length` words from the vocabulary, picked by `seed`. */
export function sentence(seed: number, length: number): string {
  let text = '';
  for (let i = 0; i < length; i++) text += `${words[(seed * 7 + i * 3) % words.length]} `;
  return text;
}

/** A token-sized delta (3–6 characters, like a model's). */
export const token = (i: number) =>
  `${words[i % words.length]!.slice(0, 3 + (i % 4))} `.slice(0, 6);
