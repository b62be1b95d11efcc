import * as fs from 'node:fs';
import * as path from 'node:path';
import { writeFileAtomic } from './storeFiles';

/**
 * `manifest.json`: what must exist in a store folder, written atomically (the folder synced) each
 * time a journal segment is started. A missing newest segment leaves no gap in the record numbers
 * that replay could see (nothing follows it), so only this file can say that it should be there.
 * It also keeps the highest owner epoch, which a clean close's deleted lease would forget.
 */
export const MANIFEST_FILE = 'manifest.json';

export interface StoreManifest {
  /** The journal segment current when the manifest was written: it and every later one should exist. */
  segment: number;
  /** The epoch of the owner that wrote it (docs/STORAGE.md "One owner"). */
  epoch: number;
}

export function readManifest(dir: string): StoreManifest | null {
  try {
    const parsed = JSON.parse(fs.readFileSync(path.join(dir, MANIFEST_FILE), 'utf8')) as Partial<StoreManifest>;
    if (typeof parsed.segment !== 'number' || typeof parsed.epoch !== 'number') return null;
    return { segment: parsed.segment, epoch: parsed.epoch };
  } catch {
    return null;
  }
}

export function writeManifest(dir: string, manifest: StoreManifest): Promise<void> {
  return writeFileAtomic(path.join(dir, MANIFEST_FILE), Buffer.from(JSON.stringify(manifest)));
}
