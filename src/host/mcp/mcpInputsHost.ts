/**
 * `${input:ID}` of mcp.json in VS Code (core/mcp/mcpInputs.ts): asked once through an input box
 * (`promptString`, hidden for `password`) or a quick pick (`pickString`), then kept for this
 * workspace and reused at every start: a password in SecretStorage, anything else in the
 * workspace's state. Kept by ID, as VS Code keeps them, so servers naming the same input share
 * one answer. `forget()` deletes every kept answer (Tasklane: Forget MCP Inputs).
 */
import * as vscode from 'vscode';
import { workspaceSecretScope } from '../../core/chores/secretScope';
import { forLabel } from '../../core/security/surfaceText';
import type { ConsentBackend } from '../../core/consent/consentStore';
import type { McpInput, McpInputPort } from '../../core/mcp/mcpInputs';

/** Where the IDs kept for this workspace are listed, so Forget finds the secrets too. */
const INDEX_KEY = 'tasklane.mcp.inputs';

export class VsCodeMcpInputs implements McpInputPort {
  /** An answer being asked for: two servers starting at once ask once. */
  private readonly asking = new Map<string, Promise<string>>();

  /** `state`: the workspace's own (workspaceState); SecretStorage is every window's, so its keys name the workspace. */
  constructor(
    private readonly secrets: Pick<vscode.SecretStorage, 'get' | 'store' | 'delete'>,
    private readonly state: ConsentBackend,
  ) {}

  async value(input: McpInput, server: string): Promise<string> {
    const kept = input.password ? await this.secrets.get(this.secretKey(input.id)) : this.state.get<string>(stateKey(input.id));
    if (kept !== undefined) return kept;
    let asked = this.asking.get(input.id);
    if (!asked) {
      asked = this.ask(input, server).finally(() => this.asking.delete(input.id));
      this.asking.set(input.id, asked);
    }
    return asked;
  }

  /** Deletes every kept answer; the IDs it deleted (their servers ask again at their next start). */
  async forget(): Promise<string[]> {
    const kept = this.state.get<string[]>(INDEX_KEY) ?? [];
    for (const id of kept) {
      await this.secrets.delete(this.secretKey(id));
      await this.state.update(stateKey(id), undefined);
    }
    await this.state.update(INDEX_KEY, undefined);
    return kept;
  }

  private async ask(input: McpInput, server: string): Promise<string> {
    // The repository wrote the question and the options: shown as inert text (docs/SECURITY.md).
    const answer =
      input.type === 'pickString'
        ? (
            await vscode.window.showQuickPick(
              (input.options ?? []).map((value) => ({ label: forLabel(value), value })),
              {
                title: vscode.l10n.t('MCP server {0}: {1}', forLabel(server), forLabel(input.description || input.id)),
                ignoreFocusOut: true,
                ...(input.default !== undefined ? { placeHolder: forLabel(input.default) } : {}),
              },
            )
          )?.value
        : await vscode.window.showInputBox({
            title: vscode.l10n.t('MCP server {0}: {1}', forLabel(server), forLabel(input.description || input.id)),
            prompt: vscode.l10n.t('The value of {0} in .vscode/mcp.json, kept for this workspace', forLabel(`\${input:${input.id}}`)),
            password: input.password === true,
            ignoreFocusOut: true,
            ...(input.default !== undefined ? { value: input.default } : {}),
          });
    if (answer === undefined) throw new Error(`no value was given for \${input:${input.id}}, so the server does not start; it asks again at its next use`);
    if (input.password) await this.secrets.store(this.secretKey(input.id), answer);
    else await this.state.update(stateKey(input.id), answer);
    const index = this.state.get<string[]>(INDEX_KEY) ?? [];
    if (!index.includes(input.id)) await this.state.update(INDEX_KEY, [...index, input.id]);
    return answer;
  }

  /** One repository's `apiKey` is not another's: the SecretStorage key names the workspace. */
  private secretKey(id: string): string {
    const workspace = vscode.workspace.workspaceFile ?? vscode.workspace.workspaceFolders?.[0]?.uri;
    return `tasklane.mcpInput.${workspaceSecretScope(workspace?.toString() ?? 'no-folder')}.${id}`;
  }
}

function stateKey(id: string): string {
  return `tasklane.mcp.input.${id}`;
}
