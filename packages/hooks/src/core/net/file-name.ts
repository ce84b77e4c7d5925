/** The name a file is uploaded under: the caller's, the `File`'s own, else `file`. */
export function fileName(file: Blob, name?: string): string {
  const own = (file as { name?: unknown }).name;
  return name ?? (typeof own === 'string' && own !== '' ? own : 'file');
}
