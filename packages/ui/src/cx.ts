/** Joins class names, dropping empty ones (the one helper clsx would give us). */
export function cx(...names: Array<string | false | null | undefined>): string {
  return names.filter(Boolean).join(' ');
}
