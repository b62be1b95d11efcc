import * as vscode from 'vscode';
import { McpOAuth } from '../../core/mcp/mcpOAuth';
import type { McpSignInPort } from '../../core/mcp/mcpOAuth';
import { forModalDetail } from '../../core/security/surfaceText';
import { notice } from '../notice';

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

  async open(server: string, authorizationUrl: URL, serverUrl?: string): Promise<boolean> {
    const choice = await vscode.window.showInformationMessage(
      notice`Sign in to the MCP server "${server}"?`,
      { modal: true, detail: forModalDetail(signInDetail(authorizationUrl, serverUrl)) },
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

/**
 * What the sign-in modal says (review 2026-12c finding 11): the server that will receive the
 * token, the site that asks for the credentials, and a warning when they are different sites. A
 * server can name any well-known sign-in site in its metadata; the person must see that the token
 * goes to the server, not to the site they recognise.
 */
export function signInDetail(authorizationUrl: URL, serverUrl?: string): string {
  const server = serverUrl ? safeUrl(serverUrl) : undefined;
  const lines = [
    server ? `Your token will be sent to ${forModalDetail(server.href)}.` : '',
    `It asks you to sign in at ${forModalDetail(authorizationUrl.origin)}.`,
    server && siteOf(server.hostname) !== siteOf(authorizationUrl.hostname)
      ? `⚠ The sign-in site (${forModalDetail(authorizationUrl.hostname)}) is not the server's site (${forModalDetail(server.hostname)}): sign in only if you expect ${forModalDetail(server.hostname)} to use your account there.`
      : '',
    `Your browser opens there; once you have signed in, it sends you back to VS Code. Tasklane keeps the sign-in in VS Code's secret storage for this server only; "Tasklane: Sign Out of MCP Server" deletes it.`,
  ];
  return lines.filter(Boolean).join('\n');
}

function safeUrl(text: string): URL | undefined {
  try {
    return new URL(text);
  } catch {
    return undefined;
  }
}

/**
 * The registrable part of a host, approximated by its last two labels (`login.example.com` and
 * `mcp.example.com` are one site). Without a public suffix list, `a.co.uk` and `b.co.uk` read as one
 * site, which only misses a warning; the token's receiver is always named above it.
 */
function siteOf(hostname: string): string {
  return hostname.toLowerCase().split('.').slice(-2).join('.');
}
