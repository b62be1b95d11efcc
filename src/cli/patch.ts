/**
 * A run's edits as one git-style unified diff: `git apply` takes it on a clean checkout, a pull
 * request carries it for review. Hunks come from jsdiff's structured patch; the headers are
 * written here so created and deleted files carry the modes git expects.
 */
import { structuredPatch } from 'diff';
import type { OverlayChange } from './overlayWorkspace';

const CONTEXT_LINES = 3;

/** The whole patch; empty when nothing changed. */
export function unifiedDiff(changes: readonly OverlayChange[]): string {
  return changes.map(fileDiff).join('');
}

function fileDiff(change: OverlayChange): string {
  const { path: file, before, after } = change;
  const header = [`diff --git a/${file} b/${file}`];
  if (before === null) header.push('new file mode 100644');
  if (after === null) header.push('deleted file mode 100644');
  header.push(before === null ? '--- /dev/null' : `--- a/${file}`, after === null ? '+++ /dev/null' : `+++ b/${file}`);
  const patch = structuredPatch(`a/${file}`, `b/${file}`, before ?? '', after ?? '', '', '', { context: CONTEXT_LINES });
  const body: string[] = [];
  for (const hunk of patch.hunks) {
    // An empty side is written `-0,0` / `+0,0`, as git writes it.
    const oldStart = hunk.oldLines === 0 ? 0 : hunk.oldStart;
    const newStart = hunk.newLines === 0 ? 0 : hunk.newStart;
    body.push(`@@ -${oldStart},${hunk.oldLines} +${newStart},${hunk.newLines} @@`, ...hunk.lines);
  }
  return `${[...header, ...body].join('\n')}\n`;
}
