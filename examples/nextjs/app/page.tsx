import { ResumableChat } from '@resumable/ui';

// A Server Component page: <ResumableChat> is a client component of its own ('use client'
// is in @resumable/ui), so it is rendered here directly, with no wrapper.
export default function Home() {
  return (
    <main>
      <ResumableChat endpoint="/api" autoFocus />
    </main>
  );
}
