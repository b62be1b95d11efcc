/**
 * A run parked at its budget on the command line (issue 43): `chores run --store DIR` keeps its
 * store when the run parks, with the overlay's edits beside it, so a later `chores run --resume
 * DIR --resume-hash H` continues the same task from the step it reached.
 *
 * The folder travels (on CI as the run's artifact) and is read back by a later job, so it is bound
 * to the paused run by a hash over every file in it: the parked run prints the hash (and the CI
 * result records it in `paused.storeHash`, which the status comment shows), and a resume refuses a
 * folder whose hash is not the one it was given. The hash is only as trustworthy as where the
 * resume reads it from: the status comment or the result of the paused run, never the folder.
 *
 * Decision: the edits are kept as full texts (`overlay.json`), not as the unified diff, so putting
 * them back needs no patch applier and cannot half-apply; a resume on a checkout whose files moved
 * on since the pause still starts from the texts the run had.
 */
import { createHash } from 'node:crypto';
import * as fs from 'node:fs';
import * as path from 'node:path';
import * as z from 'zod/v4';
import { UsageError } from './environment';
import type { OverlayWorkspace } from './overlayWorkspace';

/** The overlay's edits beside the store: workspace-relative path → text (null: deleted). */
export const OVERLAY_FILE = 'overlay.json';

const OverlayEdits = z.record(z.string(), z.string().nullable());

/** Writes the run's edits (what `workspace.changes()` holds) beside its store. */
export async function saveParkedEdits(storeDir: string, workspace: Pick<OverlayWorkspace, 'changes'>): Promise<void> {
  const edits: Record<string, string | null> = {};
  for (const change of await workspace.changes()) edits[change.path] = change.after;
  fs.writeFileSync(path.join(storeDir, OVERLAY_FILE), `${JSON.stringify(edits)}\n`);
}

/** Puts the parked run's edits back into the overlay (the run's working copy) before it continues. */
export function restoreParkedEdits(storeDir: string, workspace: Pick<OverlayWorkspace, 'seed'>): number {
  const file = path.join(storeDir, OVERLAY_FILE);
  if (!fs.existsSync(file)) return 0;
  const edits = OverlayEdits.parse(JSON.parse(fs.readFileSync(file, 'utf8')));
  workspace.seed(edits);
  return Object.keys(edits).length;
}

/**
 * sha256 over every file of the folder (its relative path and bytes, in path order). Taken when
 * the store is closed, so it names exactly what the resume will open.
 */
export function storeHash(dir: string): string {
  const hash = createHash('sha256');
  for (const rel of filesOf(dir)) {
    hash.update(`${rel}\0`);
    hash.update(fs.readFileSync(path.join(dir, rel)));
    hash.update('\0');
  }
  return hash.digest('hex');
}

/** Refuses a store folder that is not the one the paused run left (edited, swapped or from another run). */
export function checkParkedStore(dir: string, expected: string | undefined): void {
  if (!fs.existsSync(dir)) throw new UsageError(`--resume ${dir}: no such folder; give the folder the paused run kept (its --store).`);
  if (!expected)
    throw new UsageError(
      '--resume needs --resume-hash H, the store hash the paused run printed (on CI: in its status comment); the folder alone is not trusted.',
    );
  const actual = storeHash(dir);
  if (actual !== expected)
    throw new UsageError(
      `--resume ${dir}: its contents do not match the paused run's store hash (${expected.slice(0, 12)}…, this folder ${actual.slice(0, 12)}…): it was edited or is another run's. Refusing to continue from it; start a new run instead.`,
    );
}

function filesOf(dir: string, prefix = ''): string[] {
  const out: string[] = [];
  for (const entry of fs.readdirSync(path.join(dir, prefix), { withFileTypes: true }).sort((a, b) => a.name.localeCompare(b.name))) {
    const rel = prefix ? `${prefix}/${entry.name}` : entry.name;
    if (entry.isDirectory()) out.push(...filesOf(dir, rel));
    else if (entry.isFile()) out.push(rel);
  }
  return out;
}
