import type { ReactNode } from 'react';

/** Stands for the name while the sentence is built: a noncharacter no label holds. */
const MARK = '\uffff';

/**
 * A label's sentence with the name in it (a title, a file name, an answer) isolated in a
 * `<bdi>`: an unclosed right-to-left override in the name (U+202E from a user or a model)
 * would otherwise reverse the words after it. An element, not U+2068/U+2069 around the name:
 * those characters would join the text and the accessible name. The labels stay functions
 * that return strings, called with the name (a label may shorten or reword it); the sentence
 * is split around the name only where the label put the name in whole (called with a mark,
 * the same sentence), else the whole sentence is isolated.
 */
export function isolateName(sentence: (name: string) => string, name: string): ReactNode {
  const text = sentence(name);
  const parts = sentence(MARK).split(MARK);
  if (parts.join(name) !== text) return <bdi>{text}</bdi>;
  // biome-ignore lint/suspicious/noArrayIndexKey: the parts of one sentence never move
  return parts.map((part, i) => (i === 0 ? part : [<bdi key={i}>{name}</bdi>, part]));
}

/** How a caller puts a name into a sentence: `isolateName`, or as plain text. */
export type PutName = (sentence: (name: string) => string, name: string) => ReactNode;

export const plainName = (sentence: (name: string) => string, name: string): string =>
  sentence(name);
