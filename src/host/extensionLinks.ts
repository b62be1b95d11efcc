import * as vscode from 'vscode';

/**
 * `<scheme>://<extension id><path>?id=<id>`, made external so it is right in the desktop app,
 * code-server and vscode.dev: the links escalations carry (approvals, runs).
 */
export async function extensionLink(extensionId: string, path: string, id: string): Promise<string> {
  const uri = vscode.Uri.from({ scheme: vscode.env.uriScheme, authority: extensionId.toLowerCase(), path, query: `id=${encodeURIComponent(id)}` });
  return (await vscode.env.asExternalUri(uri)).toString(true);
}
