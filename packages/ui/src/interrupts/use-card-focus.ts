import { useEffect, useRef } from 'react';

/**
 * Moves focus to a card when it appears (a person is asked something: their next key
 * press should reach it), without scrolling the transcript twice.
 */
export function useCardFocus<T extends HTMLElement>() {
  const ref = useRef<T>(null);
  useEffect(() => {
    ref.current?.focus({ preventScroll: false });
  }, []);
  return ref;
}
