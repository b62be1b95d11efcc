import * as vscode from 'vscode';
import { McpOAuth } from '../../core/mcp/mcpOAuth';
import type { McpSignInPort } from '../../core/mcp/mcpOAuth';
import { showInvisible } from '../../shared/visibleText';

const SIGN_IN = 'Sign In';

/**
 * Signing in to a remote MCP server in VS Code: the redirect is the extension's own URI handler
 * (`<scheme>://<extension id>/mcp/oauth`), made external so the browser can reach it in the
 * desktop app, code-server and vscode.dev; the person is asked in a modal that names the server
 * and the site that will ask for their credentials before the browser opens.
 */
export class VsCodeSignIn implements McpSignInPort {
  constructor(private readonly extensionId: string) {}

  async redirectUri(): Promise<string> {
    const uri = vscode.Uri.from({ scheme: vscode.env.uriScheme, authority: this.extensionId.toLowerCase(), path: McpOAuth.path });
    return (await vscode.env.asExternalUri(uri)).toString(true);
  }

  async open(server: string, authorizationUrl: URL): Promise<boolean> {
    const choice = await vscode.window.showInformationMessage(
      `Sign in to the MCP server "${showInvisible(server)}"?`,
      {
        modal: true,
        detail: `It asks you to sign in at ${authorizationUrl.origin}. Your browser opens there; once you have signed in, it sends you back to VS Code. Tasklane keeps the sign-in in VS Code's secret storage for this server only; "Tasklane: Sign Out of MCP Server" deletes it.`,
      },
      SIGN_IN,
    );
    if (choice !== SIGN_IN) return false;
    return vscode.env.openExternal(exactly(authorizationUrl));
  }
}

/**
 * The page as a string, passed where the API's type says Uri. A vscode.Uri decodes the query and
 * encodes it again its own way, which turns `%26` inside a parameter into `&`: the `redirect_uri`
 * code-server and vscode.dev give (`…/callback?vscode-reqid=…&vscode-scheme=…`) arrived cut into
 * pieces and the authorization server refused it. The extension host's openExternal takes a string
 * as well and hands it on untouched (what the `open` shim of the extension host relies on).
 */
function exactly(url: URL): vscode.Uri {
  return url.toString() as unknown as vscode.Uri;
}
