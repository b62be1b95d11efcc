import * as vscode from 'vscode';
import { forLabel } from '../../core/security/surfaceText';
import type { McpContext } from '../../core/mcp/mcpContext';
import type { AttachmentView } from '../../shared/contextProtocol';

/**
 * The `@` picker's MCP step: the resources and prompts of the trusted servers (listing starts a
 * server lazily, as listing its tools does), then the picked one's content as an attachment. A
 * prompt's arguments are asked one input box each (see src/core/mcp/mcpContext.ts for why prompts
 * with arguments are offered); Escape on any of them attaches nothing.
 */
export async function pickMcpContext(context: McpContext): Promise<AttachmentView | undefined> {
  const entries = await vscode.window.withProgress(
    { location: vscode.ProgressLocation.Window, title: vscode.l10n.t('Tasklane: listing MCP resources and prompts') },
    () => context.entries(),
  );
  if (!entries.length) throw new Error('no trusted MCP server offers resources or prompts (see the MCP servers section for broken ones)');
  const pick = await vscode.window.showQuickPick(
    entries.map((entry) => ({
      label: `${entry.kind === 'resource' ? '$(file-symlink-file)' : '$(comment)'} ${forLabel(entry.label)}`,
      detail: forLabel(entry.detail ?? ''),
      entry,
    })),
    { title: vscode.l10n.t('Tasklane: attach an MCP resource or prompt'), placeHolder: vscode.l10n.t('Type to filter'), matchOnDetail: true },
  );
  if (!pick) return undefined;
  const attachment = await context.attach(
    pick.entry,
    async (prompt, argument) =>
      await vscode.window.showInputBox({
        // The prompt's and the argument's names and description are the MCP server's words.
        title: vscode.l10n.t('Tasklane: {0} — {1}{2}', forLabel(prompt), forLabel(argument.name), argument.required ? '' : vscode.l10n.t(' (optional)')),
        prompt: argument.description ? forLabel(argument.description) : vscode.l10n.t('Value of {0}', forLabel(argument.name)),
        ignoreFocusOut: true,
        validateInput: (value) => (argument.required && !value.trim() ? vscode.l10n.t('{0} is required', forLabel(argument.name)) : undefined),
      }),
  );
  return attachment ? { kind: 'mcp', label: attachment.label, text: attachment.text } : undefined;
}
