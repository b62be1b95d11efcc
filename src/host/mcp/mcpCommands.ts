import * as vscode from 'vscode';
import { forLabel } from '../../core/security/surfaceText';
import { notice } from '../notice';
import type { ConsentDialogs } from '../consentDialog';
import type { McpServerStatus } from '../../core/mcp/mcpServers';
import type { McpHost } from './mcpHost';

/**
 * `tasklane.trustMcpServer [name] [hash]` and `tasklane.distrustMcpServer [name]`. Trust always
 * shows the person everything that decides what runs (command, arguments, working folder, every
 * environment entry with loader variables flagged, the workspace files it runs) in a modal, and
 * binds consent to exactly that review's hash: a definition or file that changes while the modal
 * is open is refused. A caller (another extension, a test, the sidebar's Trust button) passing a
 * name only preselects the server; passing `hash` (from `tasklane.getState`) pins the definition
 * it looked at, and a server that no longer matches is refused before anything is asked.
 */
export function registerMcpCommands(ready: Promise<McpHost>, dialogs: ConsentDialogs): vscode.Disposable[] {
  return [
    vscode.commands.registerCommand('tasklane.trustMcpServer', async (name?: unknown, hash?: unknown) => {
      const host = await ready;
      const waiting = host.status().filter((s) => s.consent === 'needed');
      let chosen = typeof name === 'string' && name ? name : undefined;
      if (!chosen) {
        if (!waiting.length) {
          void vscode.window.showInformationMessage(notice`Tasklane: no MCP server in .vscode/mcp.json waits for your trust.`);
          return false;
        }
        chosen = (
          await vscode.window.showQuickPick(
            waiting.map((s) => ({ label: forLabel(s.name), description: forLabel(s.target), name: s.name })),
            { title: vscode.l10n.t('Tasklane: trust which MCP server?') },
          )
        )?.name;
        if (!chosen) return false;
      }
      const review = host.review(chosen);
      if (!review) throw new Error(`There is no MCP server "${chosen}" in .vscode/mcp.json or tasklane.mcp.servers.`);
      if (typeof hash === 'string' && hash !== review.hash)
        throw new Error(`The MCP server "${chosen}" changed since you looked at it; review it again before trusting it.`);
      const detail = [
        'It would run on your machine:',
        review.text,
        '',
        "Its tools are offered to Tasklane's tasks; every call still asks you unless you allowlist it. Any change to this definition or to the files it runs asks again.",
      ].join('\n');
      const yes = await dialogs.confirm(`Trust the MCP server "${chosen}" from this repository?`, detail, 'Trust', `mcp-${chosen}`);
      if (!yes) return false;
      // Bound to the review on screen: a definition that changed while the modal was open is refused.
      await host.trust(chosen, review.hash);
      return true;
    }),
    // Sign-in asks in its own modal before the browser opens (mcpSignIn.ts); sign-out only takes access away.
    vscode.commands.registerCommand('tasklane.signInMcpServer', async (name?: unknown) => {
      const host = await ready;
      const chosen = await pickRemote(host, name, 'sign in to', (s) => s.trusted);
      if (!chosen) return false;
      await host.signIn(chosen);
      void vscode.window.showInformationMessage(notice`Tasklane: signed in to the MCP server "${chosen}".`);
      return true;
    }),
    vscode.commands.registerCommand('tasklane.signOutMcpServer', async (name?: unknown) => {
      const host = await ready;
      const chosen = await pickRemote(host, name, 'sign out of', () => true);
      if (!chosen) return false;
      const had = await host.signOut(chosen);
      void vscode.window.showInformationMessage(
        had
          ? notice`Tasklane: signed out of the MCP server "${chosen}"; its next use asks you to sign in again.`
          : notice`Tasklane: you were not signed in to "${chosen}".`,
      );
      return had;
    }),
    // The kept answers to mcp.json's ${input:ID} (mcpInputsHost.ts); each server naming one asks again.
    vscode.commands.registerCommand('tasklane.forgetMcpInputs', async () => {
      const forgotten = await (await ready).forgetInputs();
      void vscode.window.showInformationMessage(
        forgotten.length
          ? notice`Tasklane: forgot ${forgotten.length} MCP input(s); the servers that use them ask again.`
          : notice`Tasklane: no MCP input was kept for this workspace.`,
      );
      return forgotten;
    }),
    vscode.commands.registerCommand('tasklane.distrustMcpServer', async (name?: unknown) => {
      const host = await ready;
      let chosen = typeof name === 'string' && name ? name : undefined;
      if (!chosen) {
        const trusted = host.status().filter((s) => s.consent === 'given');
        chosen = (
          await vscode.window.showQuickPick(
            trusted.map((s) => ({ label: forLabel(s.name), description: forLabel(s.target), name: s.name })),
            { title: vscode.l10n.t('Tasklane: stop trusting which MCP server?') },
          )
        )?.name;
        if (!chosen) return false;
      }
      await host.distrust(chosen);
      return true;
    }),
  ];
}

/** The server named by the caller, else the person's pick among the remote (HTTP) servers that fit. */
async function pickRemote(
  host: McpHost,
  name: unknown,
  verb: 'sign in to' | 'sign out of',
  fits: (s: McpServerStatus) => boolean,
): Promise<string | undefined> {
  if (typeof name === 'string' && name) return name;
  const remote = host.status().filter((s) => s.transport === 'http' && fits(s));
  if (!remote.length) {
    // One whole sentence per verb: a translation never holds an English verb as a value.
    const none =
      verb === 'sign in to' ? notice`Tasklane: there is no remote MCP server to sign in to.` : notice`Tasklane: there is no remote MCP server to sign out of.`;
    void vscode.window.showInformationMessage(none);
    return undefined;
  }
  const picked = await vscode.window.showQuickPick(
    remote.map((s) => ({ label: forLabel(s.name), description: forLabel(s.target), name: s.name })),
    { title: verb === 'sign in to' ? vscode.l10n.t('Tasklane: sign in to which MCP server?') : vscode.l10n.t('Tasklane: sign out of which MCP server?') },
  );
  return picked?.name;
}
