// The chunk of lazy-parts.tsx (`partsChunk`): what a transcript's first frame does not draw.
// Their wrappers (in the first paint) work out what to draw; these only draw it.
export { BranchNav } from './branch-nav.js';
export { KeepPlaceOnPrepend } from './keep-place.js';
export { FileList } from './message-file-list.js';
export { ReplyAnnouncement } from './reply-announcement.js';
export { ToolCallCard } from './tool-call-card.js';
