'use client';

import dynamic from 'next/dynamic';

// The chat keeps its conversation in the browser's IndexedDB: it is made in the browser
// only, not rendered on the server.
export const Chat = dynamic(() => import('./chat-view').then((m) => m.ChatView), {
  ssr: false,
  loading: () => <p>Loading…</p>,
});
