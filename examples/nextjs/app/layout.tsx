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
      </body>
    </html>
  );
}
