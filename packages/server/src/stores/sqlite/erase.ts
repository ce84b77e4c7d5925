import type Database from 'libsql';

/**
 * Makes the deletes done so far final in the file. With `secure_delete` on (the store sets
 * it at open), a deleted row is overwritten with zeros in the pages that held it — but in
 * WAL mode those pages go to the WAL, and the database file and the WAL's older frames
 * still hold the bytes until a checkpoint copies the new pages back; `TRUNCATE` then
 * empties the WAL. Called after a thread or an upload is removed (`DELETE /threads/{id}`,
 * the sweep of unnamed uploads), not after every write.
 */
export function eraseDeleted(db: Database.Database): void {
  db.pragma('wal_checkpoint(TRUNCATE)');
}
