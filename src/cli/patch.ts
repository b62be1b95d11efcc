/**
 * A run's edits as one git-style unified diff: `git apply` takes it on a clean checkout, a pull
 * request carries it for review. Hunks come from jsdiff's structured patch; the headers are
 * written here so created and deleted files carry the modes git expects.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import { structuredPatch } from 'diff';
import { UsageError } from './environment';
import type { OverlayChange } from './overlayWorkspace';

const CONTEXT_LINES = 3;

/** The whole patch; empty when nothing changed. */
export function unifiedDiff(changes: readonly OverlayChange[]): string {
  return changes.map(fileDiff).join('');
}

function fileDiff(change: OverlayChange): string {
  const { path: file, before, after } = change;
  // A name the model chose is one header field, never header lines of its own (security review
  // 2026-12b finding 15): quoted as git quotes it, which `git apply` reads back.
  const a = gitQuotedPath(`a/${file}`);
  const b = gitQuotedPath(`b/${file}`);
  const header = [`diff --git ${a} ${b}`];
  if (before === null) header.push('new file mode 100644');
  if (after === null) header.push('deleted file mode 100644');
  header.push(before === null ? '--- /dev/null' : `--- ${a}`, after === null ? '+++ /dev/null' : `+++ ${b}`);
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

const C_ESCAPES: Readonly<Record<string, string>> = {
  '\x07': '\\a',
  '\b': '\\b',
  '\t': '\\t',
  '\n': '\\n',
  '\v': '\\v',
  '\f': '\\f',
  '\r': '\\r',
  '"': '\\"',
  '\\': '\\\\',
};

/**
 * A path as git writes it in a patch header (`quote_c_style`, core.quotePath on): as is when it
 * has only printable ASCII other than `"` and a backslash; otherwise in double quotes with C escapes for
 * the usual controls and octal escapes for every other control or non-ASCII byte (UTF-8).
 */
export function gitQuotedPath(name: string): string {
  // eslint-disable-next-line no-control-regex -- control characters are exactly what must be quoted
  if (!/[\u0000-\u001f"\\\u007f-\uffff]/.test(name)) return name;
  let out = '';
  for (const byte of Buffer.from(name, 'utf8')) {
    const char = String.fromCharCode(byte);
    if (C_ESCAPES[char]) out += C_ESCAPES[char];
    else if (byte < 0x20 || byte >= 0x7f) out += `\\${byte.toString(8).padStart(3, '0')}`;
    else out += char;
  }
  return `"${out}"`;
}

/**
 * Writes the patch for `--patch-out` and `--out` (security review 2026-12b finding 7): never through a
 * symbolic link a repository may ship in its place. A link at the path is refused; the text goes
 * to a new file beside it (exclusive create) renamed over the path, and a rename replaces a link
 * made in between instead of following it.
 */
export function writePatchFile(file: string, patch: string): void {
  const existing = fs.lstatSync(file, { throwIfNoEntry: false });
  if (existing?.isSymbolicLink()) throw new UsageError(`${file} is a symbolic link; nothing is written through it. Choose another path.`);
  if (existing && !existing.isFile()) throw new UsageError(`${file} exists and is not a file.`);
  const temp = path.join(path.dirname(file), `.${path.basename(file)}.${process.pid}.${Date.now()}.tmp`);
  fs.writeFileSync(temp, patch, { flag: 'wx', mode: 0o644 });
  try {
    fs.renameSync(temp, file);
  } catch (error) {
    fs.rmSync(temp, { force: true });
    throw error;
  }
}
