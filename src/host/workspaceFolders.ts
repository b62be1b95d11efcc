import * as path from 'node:path';
import * as vscode from 'vscode';
import type { WorkspaceRoot } from '../core/approval/paths/workspaceRoots';
import { joinRootPath, rootPathOrThrow, workspaceRoots } from '../core/approval/paths/workspaceRoots';

/**
 * The host half of the multi-root path scheme (src/core/approval/paths/workspaceRoots.ts): the
 * open folders as roots, and the one mapping between a workspace path (`<folder>/<path>` when
 * several folders are open, plain otherwise) and a VS Code URI. The edit applier, the approval
 * views and code intelligence locations all go through it, so a path the model read is the path
 * its edit lands on.
 */
export interface HostRoots {
  roots: WorkspaceRoot[];
  folders: readonly vscode.Uri[];
  /** The URI a workspace path names; rejects a path naming no folder (listing the folders). */
  uri(workspacePath: string): vscode.Uri;
  /** The workspace path of `uri`, or undefined for anything not a file under one of the folders. */
  relative(uri: vscode.Uri): string | undefined;
}

/** The roots of `folders` (VS Code's workspace folders, in order). */
export function hostRoots(folders: ReadonlyArray<{ name: string; uri: vscode.Uri }>): HostRoots {
  const roots = workspaceRoots(folders.map((f) => ({ name: f.name, path: f.uri.fsPath })));
  const uris = folders.map((f) => f.uri);
  return {
    roots,
    folders: uris,
    uri(workspacePath) {
      const { root, relative } = rootPathOrThrow(roots, workspacePath);
      return vscode.Uri.joinPath(uris[roots.indexOf(root)], ...relative.split('/').filter(Boolean));
    },
    relative(uri) {
      for (const [i, folder] of uris.entries()) {
        if (uri.scheme !== folder.scheme || uri.authority !== folder.authority) continue;
        const inside = path.posix.relative(folder.path, uri.path);
        if (inside && !inside.startsWith('..') && !path.posix.isAbsolute(inside)) return joinRootPath(roots, roots[i], inside);
      }
      return undefined;
    },
  };
}
