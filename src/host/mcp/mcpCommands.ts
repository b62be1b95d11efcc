import * as vscode from 'vscode';
import type { McpHost } from './mcpHost';

/**
 * `tasklane.trustMcpServer [name] [hash]` and `tasklane.distrustMcpServer [name]`. From the palette
 * the person picks a server and sees exactly what would run (command line or URL) in a modal
 * before saying yes. A script or test that read the server's `hash` from `tasklane.getState`
 * passes it: consent then binds to exactly that definition, and one that changed is refused.
 */
export function registerMcpCommands(ready: Promise<McpHost>): vscode.Disposable[] {
  return [
    vscode.commands.registerCommand('tasklane.trustMcpServer', async (name?: unknown, hash?: unknown) => {
      const host = await ready;
      const waiting = host.status().filter((s) => s.consent === 'needed');
      let chosen = typeof name === 'string' && name ? name : undefined;
      if (!chosen) {
        if (!waiting.length) {
          void vscode.window.showInformationMessage(`Tasklane: no MCP server in .vscode/mcp.json waits for your trust.`);
          return false;
        }
        chosen = (
          await vscode.window.showQuickPick(
            waiting.map((s) => ({ label: s.name, description: s.target, name: s.name })),
            { title: 'Tasklane: trust which MCP server?' },
          )
        )?.name;
        if (!chosen) return false;
      }
      const server = host.status().find((s) => s.name === chosen);
      if (!server) throw new Error(`There is no MCP server "${chosen}" in .vscode/mcp.json or tasklane.mcp.servers.`);
      if (typeof hash === 'string') {
        if (hash !== server.hash) throw new Error(`The MCP server "${chosen}" changed since you looked at it; review it again before trusting it.`);
      } else {
        const answer = await vscode.window.showWarningMessage(
          `Trust the MCP server "${server.name}" from this repository?`,
          {
            modal: true,
            detail: `It runs on your machine as: ${server.target}\n\nIts tools are offered to Tasklane's tasks; every call still asks you unless you allowlist it. Any change to its definition asks again.`,
          },
          'Trust',
        );
        if (answer !== 'Trust') return false;
      }
      await host.trust(server.name);
      return true;
    }),
    vscode.commands.registerCommand('tasklane.distrustMcpServer', async (name?: unknown) => {
      const host = await ready;
      let chosen = typeof name === 'string' && name ? name : undefined;
      if (!chosen) {
        const trusted = host.status().filter((s) => s.consent === 'given');
        chosen = (
          await vscode.window.showQuickPick(
            trusted.map((s) => ({ label: s.name, description: s.target, name: s.name })),
            { title: 'Tasklane: stop trusting which MCP server?' },
          )
        )?.name;
        if (!chosen) return false;
      }
      await host.distrust(chosen);
      return true;
    }),
  ];
}
