/**
 * `chores run --out DIR`, in its least form: the run's JSON result as `tasklane-result.json` and
 * its patch as `tasklane.patch`, which the generated workflow's agent job uploads for the apply
 * job. The result manifest of issue 24 (proposed outputs, event item, verdict) extends the JSON.
 * Nothing is written through a symbolic link: the folder and both files are checked (patch.ts).
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import { UsageError } from './environment';
import { writePatchFile } from './patch';

export const RESULT_FILE = 'tasklane-result.json';
export const PATCH_FILE = 'tasklane.patch';

/** Writes the result (and the patch, when the run edited files) into `dir`, creating it. */
export function writeRunOut(dir: string, result: unknown, patch: string): void {
  if (fs.lstatSync(dir, { throwIfNoEntry: false })?.isSymbolicLink()) throw new UsageError(`--out ${dir} is a symbolic link; nothing is written through it.`);
  fs.mkdirSync(dir, { recursive: true });
  writePatchFile(path.join(dir, RESULT_FILE), `${JSON.stringify(result, null, 2)}\n`);
  if (patch) writePatchFile(path.join(dir, PATCH_FILE), patch);
}
