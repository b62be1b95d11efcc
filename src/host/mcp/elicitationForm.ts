import * as vscode from 'vscode';
import { fieldHint, readTyped } from '../../core/mcp/mcpElicitation';
import type { ElicitationAnswer, ElicitationPort, ElicitationRequest, ElicitField, ElicitValue } from '../../core/mcp/mcpElicitation';
import { cutDetail } from '../dialogText';
import { forLabel, forModalDetail, forNotification } from '../../core/security/surfaceText';
import { notice } from '../notice';

const FILL_IN = 'Fill In…';
const DECLINE = 'Decline';
const SKIP = '(leave empty)';

/**
 * An MCP server's request for input, as VS Code's own dialogs: a modal naming the server with its
 * message and the values it wants (Fill In…, Decline, or Cancel), then one input box or quick pick
 * per value. Escape at any step cancels; the server withdrawing the request closes what is open.
 * The checks of each value are the core's (`readTyped`), so this stays the thin part.
 */
export class ElicitationForm implements ElicitationPort {
  async elicit(request: ElicitationRequest, signal: AbortSignal): Promise<ElicitationAnswer> {
    const server = forLabel(request.server);
    const asked = request.fields.map((f) => `• ${forNotification(f.title)}${f.required ? '' : ' (optional)'}`).join('\n');
    const detail = cutDetail(
      [forModalDetail(request.message), '', asked, '', 'What you enter goes to this server only; Tasklane does not send it to the model.'].join('\n'),
    ).shown;
    const choice = await vscode.window.showInformationMessage(
      notice`The MCP server "${request.server}" asks you for input`,
      { modal: true, detail: forModalDetail(detail) },
      FILL_IN,
      DECLINE,
    );
    if (signal.aborted || choice === undefined) return { action: 'cancel' };
    if (choice === DECLINE) return { action: 'decline' };
    const source = new vscode.CancellationTokenSource();
    const onAbort = () => source.cancel();
    signal.addEventListener('abort', onAbort, { once: true });
    try {
      const content: Record<string, ElicitValue> = {};
      for (const [i, field] of request.fields.entries()) {
        const title = `${server}: ${forLabel(field.title)} (${i + 1}/${request.fields.length})`;
        const answer = await ask(field, title, source.token);
        if (signal.aborted || answer === 'cancel') return { action: 'cancel' };
        if (answer !== 'skip') content[field.key] = answer.value;
      }
      return { action: 'accept', content };
    } finally {
      signal.removeEventListener('abort', onAbort);
      source.dispose();
    }
  }
}

type Asked = { value: ElicitValue } | 'skip' | 'cancel';

async function ask(field: ElicitField, asked: string, token: vscode.CancellationToken): Promise<Asked> {
  // Built from the server's name and the field's title, each neutralised; once more here, where it is shown.
  const title = forLabel(asked);
  const hint = forLabel(fieldHint(field));
  const skip = field.required ? [] : [{ label: SKIP, value: undefined }];
  switch (field.kind) {
    case 'text':
    case 'number': {
      const typed = await vscode.window.showInputBox(
        {
          title,
          prompt: hint || undefined,
          value: field.default === undefined ? '' : String(field.default),
          ignoreFocusOut: true,
          validateInput: (text) => {
            const read = readTyped(field, text);
            return 'error' in read ? read.error : undefined;
          },
        },
        token,
      );
      if (typed === undefined) return 'cancel';
      const read = readTyped(field, typed);
      return 'value' in read ? { value: read.value } : 'skip';
    }
    case 'boolean': {
      const items = [{ label: 'Yes', value: true as boolean | undefined }, { label: 'No', value: false as boolean | undefined }, ...skip];
      const picked = await vscode.window.showQuickPick(items, { title, placeHolder: hint, ignoreFocusOut: true }, token);
      if (!picked) return 'cancel';
      return picked.value === undefined ? 'skip' : { value: picked.value };
    }
    case 'choice': {
      const items = [
        ...field.options.map((o) => ({
          label: forLabel(o.label),
          description: o.label === o.value ? undefined : forLabel(o.value),
          value: o.value as string | undefined,
        })),
        ...skip,
      ];
      const picked = await vscode.window.showQuickPick(items, { title, placeHolder: hint, ignoreFocusOut: true }, token);
      if (!picked) return 'cancel';
      return picked.value === undefined ? 'skip' : { value: picked.value };
    }
    case 'choices': {
      const bounds = [field.minItems ? `at least ${field.minItems}` : '', field.maxItems ? `at most ${field.maxItems}` : ''].filter(Boolean).join(', ');
      for (;;) {
        const items = field.options.map((o) => ({ label: forLabel(o.label), value: o.value, picked: field.default?.includes(o.value) ?? false }));
        const picked = await vscode.window.showQuickPick(
          items,
          { title, placeHolder: forLabel([hint, bounds ? `Pick ${bounds}.` : ''].filter(Boolean).join(' ')), canPickMany: true, ignoreFocusOut: true },
          token,
        );
        if (!picked) return 'cancel';
        if (picked.length === 0 && !field.required) return 'skip';
        const count = picked.length;
        if ((field.minItems === undefined || count >= field.minItems) && (field.maxItems === undefined || count <= field.maxItems))
          return { value: picked.map((p) => p.value) };
        void vscode.window.showWarningMessage(notice`Pick ${bounds} for ${field.title}.`);
      }
    }
  }
}
