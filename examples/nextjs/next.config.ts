import type { NextConfig } from 'next';

const config: NextConfig = {
  // The server kit runs on Node as it is, not bundled: it opens the native SQLite module
  // (libsql) and Redis connections, and its runs outlive the requests that start them.
  serverExternalPackages: ['@resumable/server'],
  // `next dev` would write AGENTS.md and CLAUDE.md into the example when it detects a coding
  // agent: files of Next's, not the example's.
  agentRules: false,
};

export default config;
