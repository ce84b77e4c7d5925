/**
 * `pnpm --filter @resumable/server migrate:redis <redis://host:port> [prefix]`: moves a
 * Redis store written before keys carried their thread's hash tag to the current layout,
 * in place (stores/redis/migrate.ts). Stop every server instance first; running it again
 * is harmless. Prints what it moved.
 */
import { migrateRedisLayout } from './stores/redis/migrate.js';

const [url, prefix] = process.argv.slice(2);
if (!url || !/^rediss?:\/\//.test(url)) {
  console.error('usage: migrate:redis <redis://host:port[/db]> [prefix, default resumable:]');
  process.exit(2);
}
try {
  const report = await migrateRedisLayout(url, prefix ?? 'resumable:', (m) => console.log(m));
  console.log(
    `moved ${report.keys} keys: ${report.threads} threads, ${report.runs} runs (prefix ${prefix ?? 'resumable:'})`,
  );
} catch (error) {
  console.error(`migration failed: ${error instanceof Error ? error.message : String(error)}`);
  process.exit(1);
}
