/**
 * What the read actions' listing and search take from VS Code: the ripgrep VS Code ships with
 * itself (so search works with nothing installed), and the person's `files.exclude` and
 * `search.exclude`, which hide from the agent what they hide in the Explorer and in Search.
 */
import { constants as fsConstants } from 'node:fs';
import { access } from 'node:fs/promises';
import * as path from 'node:path';
import * as vscode from 'vscode';
import { findRipgrepOnPath } from '../core/approval/paths/ripgrep';

/**
 * Where VS Code keeps its ripgrep below `vscode.env.appRoot`: desktop builds carry
 * `@vscode/ripgrep` (unpacked from the asar archive), the server and code-server builds
 * `@vscode/ripgrep-universal` with one binary per platform.
 */
function candidates(appRoot: string): string[] {
  const exe = process.platform === 'win32' ? 'rg.exe' : 'rg';
  const platform = `${process.platform}-${process.arch}`;
  const out: string[] = [];
  for (const modules of ['node_modules', 'node_modules.asar.unpacked']) {
    out.push(path.join(appRoot, modules, '@vscode', 'ripgrep', 'bin', exe));
    out.push(path.join(appRoot, modules, '@vscode', 'ripgrep-universal', 'bin', platform, exe));
  }
  return out;
}

/** VS Code's own ripgrep, else one on the PATH, else undefined (the read actions then walk in process). */
export async function vscodeRipgrep(appRoot: string = vscode.env.appRoot): Promise<string | undefined> {
  for (const candidate of candidates(appRoot)) {
    const runnable = await access(candidate, fsConstants.X_OK).then(
      () => true,
      () => false,
    );
    if (runnable) return candidate;
  }
  return findRipgrepOnPath();
}

/**
 * The globs `files.exclude` and `search.exclude` switch on for `folder`. An entry whose value is
 * an object (`{ "when": "$(basename).ts" }`, hide a file when a sibling exists) depends on each
 * folder's contents and is not expressible as an ignore rule: it is left out, so such files are
 * searched (shown, rather than silently hidden).
 */
export function editorExcludes(folder: vscode.Uri | undefined): string[] {
  const out: string[] = [];
  for (const section of ['files', 'search']) {
    const map = vscode.workspace.getConfiguration(section, folder).get<Record<string, unknown>>('exclude') ?? {};
    for (const [glob, on] of Object.entries(map)) if (on === true && !out.includes(glob)) out.push(glob);
  }
  return out;
}
