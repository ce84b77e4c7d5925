import { ResumableDevtools } from '@resumable/devtools';
import '@resumable/ui/styles.css';
import './globals.css';
import type { Metadata, Viewport } from 'next';
import Link from 'next/link';
import type { ReactNode } from 'react';

export const metadata: Metadata = { title: 'Resumable × Next.js' };
export const viewport: Viewport = { width: 'device-width', initialScale: 1, viewportFit: 'cover' };

export default function RootLayout({ children }: { children: ReactNode }) {
  return (
    <html lang="en">
      <body>
        <nav aria-label="Examples">
          <Link href="/">&lt;ResumableChat&gt;</Link>
          <Link href="/use-chat">useChat</Link>
        </nav>
        {children}
        {/* Under `next dev`, a button that opens the devtools panel (bottom right: Next's
            own dev indicator sits bottom left); in `next build`, nothing (the production
            export condition picks the package's stand-in). */}
        <ResumableDevtools buttonPosition="bottom-right" />
      </body>
    </html>
  );
}
