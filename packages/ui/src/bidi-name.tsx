import type { ReactNode } from 'react';

/** Stands for the name while the sentence is built: a noncharacter no label holds. */
const MARK = '\uffff';

/**
 * A label's sentence with the name in it (a title, a file name, an answer) isolated in a
 * `<bdi>`: an unclosed right-to-left override in the name (U+202E from a user or a model)
 * would otherwise reverse the words after it. An element, not U+2068/U+2069 around the name:
 * those characters would join the text and the accessible name. The labels stay functions
 * that return strings; one called with a mark is split around it.
 */
export function isolateName(sentence: (name: string) => string, name: string): ReactNode {
  return (
    sentence(MARK)
      .split(MARK)
      // biome-ignore lint/suspicious/noArrayIndexKey: the parts of one sentence never move
      .map((part, i) => (i === 0 ? part : [<bdi key={i}>{name}</bdi>, part]))
  );
}

/** How a caller puts a name into a sentence: `isolateName`, or as plain text. */
export type PutName = (sentence: (name: string) => string, name: string) => ReactNode;

export const plainName = (sentence: (name: string) => string, name: string): string =>
  sentence(name);
