/**
 * Which `vscode:` links a reply may open (review 2026-12b finding 17). A `vscode:` URI is handed
 * to whichever extension owns its authority, and `vscode:mcp/install` to VS Code's MCP installer:
 * a prompt-injected reply must not start another extension's flow with one click. A reply opens
 * only Tasklane's own handlers (its approval links) and VS Code's file links, which become file
 * targets that go through the workspace path guard like any other file link; every other
 * `vscode:` URI stays plain text. Imported by the webview's renderer and the host's own check, so
 * both sides decide alike. Imports nothing (see viewConstants.ts).
 */

/** Tasklane's extension id (`publisher.name`), the authority of its own links. */
export const TASKLANE_EXTENSION_ID = 'tasklane.tasklane';

/** The schemes of VS Code's own links (stable and Insiders). */
const VSCODE_SCHEMES = new Set(['vscode', 'vscode-insiders']);

/**
 * What a `vscode:` link may do from a reply. A refusal is data (why, and the extension it names), not a sentence: the sidebar words it in the person's language (src/webview/markdown.ts).
 */
export type VscodeLinkVerdict =
  | { kind: 'own'; url: string }
  | { kind: 'file'; spec: string }
  | { kind: 'refused'; why: 'no_extension' }
  | { kind: 'refused'; why: 'other_extension'; extension: string };

/**
 * Decides a `vscode:`/`vscode-insiders:` link (`href` without control characters); undefined for
 * other schemes. Only `<scheme>://tasklane.tasklane/…` (Tasklane's handler) opens as a link, and
 * `<scheme>://file/<path>[:line[:col]]` is a file target.
 */
export function vscodeLink(href: string): VscodeLinkVerdict | undefined {
  const match = /^([a-z][a-z0-9+.-]*):(.*)$/is.exec(href);
  if (!match || !VSCODE_SCHEMES.has(match[1].toLowerCase())) return undefined;
  const rest = match[2];
  if (!rest.startsWith('//')) return { kind: 'refused', why: 'no_extension' };
  const authorityEnd = rest.slice(2).search(/[/?#]/);
  const authority = (authorityEnd === -1 ? rest.slice(2) : rest.slice(2, 2 + authorityEnd)).toLowerCase();
  const tail = authorityEnd === -1 ? '' : rest.slice(2 + authorityEnd);
  if (authority === TASKLANE_EXTENSION_ID) return { kind: 'own', url: href };
  if (authority === 'file' && tail.startsWith('/')) return { kind: 'file', spec: tail.replace(/[?].*$/, '') };
  if (authority === '') return { kind: 'refused', why: 'no_extension' };
  return { kind: 'refused', why: 'other_extension', extension: authority };
}
