import * as fs from 'node:fs';
import * as path from 'node:path';
import type { JournalWriter } from './journalWriter';
import { listStoreDir, moveAside, unsealSnapshotFile } from './storeFiles';

/**
 * Keeps the newest two snapshots that check out and every journal segment the older of them
 * still needs (docs/STORAGE.md "Snapshots"). A damaged snapshot never counts as one of the two: it
 * would let the good one and its journal go, and the next damage would lose everything. It is
 * moved aside (`*.damaged`) for inspection instead.
 */
export class SnapshotPruner {
  /** Snapshot file names known to check out (written here, or loaded or verified since open). */
  private readonly good = new Set<string>();

  constructor(private readonly dir: string) {}

  knownGood(name: string): void {
    this.good.add(name);
  }

  prune(writer: JournalWriter): void {
    const listing = listStoreDir(this.dir);
    const kept: Array<{ file: string; lsn: number }> = [];
    for (const snapshot of listing.snapshots) {
      if (kept.length >= 2) fs.rmSync(snapshot.file, { force: true });
      else if (this.checksOut(snapshot.file)) kept.push(snapshot);
      else moveAside(snapshot.file);
    }
    // With a single good snapshot, a damaged one would fall back to the journal alone: keep it all.
    const floor = kept.length >= 2 ? kept[1].lsn : 0;
    if (floor === 0) return;
    for (const segment of listing.journals) {
      if (segment.seq >= writer.seq) continue;
      const maxLsn = writer.segmentMaxLsn.get(segment.seq) ?? 0;
      if (maxLsn <= floor) {
        fs.rmSync(segment.file, { force: true });
        writer.segmentMaxLsn.delete(segment.seq);
      }
    }
  }

  /** Snapshots this process wrote or loaded are known good; any other is read and its checksum checked. */
  private checksOut(file: string): boolean {
    const name = path.basename(file);
    if (this.good.has(name)) return true;
    try {
      if ('corrupt' in unsealSnapshotFile(fs.readFileSync(file))) return false;
    } catch {
      return false;
    }
    this.good.add(name);
    return true;
  }
}
