// A file's icon, beside the kit's own (icons.tsx): drawn by the transcript's files and the
// composer's tray, both loaded lazily, so not on the first paint.
import { Icon } from './icons.js';

export function FileIcon() {
  return (
    <Icon>
      <path d="M14 2H6a2 2 0 0 0-2 2v16a2 2 0 0 0 2 2h12a2 2 0 0 0 2-2V8z" />
      <path d="M14 2v6h6" />
    </Icon>
  );
}
