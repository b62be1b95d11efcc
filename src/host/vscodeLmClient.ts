import * as vscode from 'vscode';
import type { ModelClient, ModelMessage, ModelRequest, ModelResponse, ToolCall } from '../core/model/types';
import { ModelError } from '../core/model/types';
import { ModelStoppedError } from '../core/model/errors';

/**
 * The model port over VS Code's Language Model API (vscode.lm): any chat model another extension
 * provides (Copilot, or a test provider), no API key needed. The API has no system role, so the
 * system prompt goes first as a user message; it has no usage report, so tokens are counted with
 * the model's own `countTokens`. It neither times out nor retries: ModelProvider puts it under the
 * same guard as the API clients (core/model/guarded.ts), so it only maps its failures to ModelErrors.
 */
export class VsCodeLmClient implements ModelClient {
  readonly provider = 'vscode-lm';

  constructor(private readonly chat: vscode.LanguageModelChat) {}

  get model(): string {
    return `${this.chat.vendor}/${this.chat.id}`;
  }

  async complete(request: ModelRequest, onText?: (delta: string) => void): Promise<ModelResponse> {
    const messages = [vscode.LanguageModelChatMessage.User(request.system), ...request.messages.map(toLmMessage)];
    // Cancelling the token is how vscode.lm cancels the provider's request.
    const cancel = new vscode.CancellationTokenSource();
    const onAbort = () => cancel.cancel();
    if (request.signal?.aborted) cancel.cancel();
    else request.signal?.addEventListener('abort', onAbort, { once: true });
    let text = '';
    const toolCalls: ToolCall[] = [];
    try {
      const response = await this.chat.sendRequest(
        messages,
        {
          justification: 'Tasklane runs the task you asked for.',
          tools: request.tools.map((t) => ({ name: t.name, description: t.description, inputSchema: t.inputSchema })),
          toolMode: request.toolChoice === 'required' ? vscode.LanguageModelChatToolMode.Required : vscode.LanguageModelChatToolMode.Auto,
        },
        cancel.token,
      );
      for await (const part of response.stream) {
        if (request.signal?.aborted) break;
        if (part instanceof vscode.LanguageModelTextPart) {
          text += part.value;
          request.onDelta?.({ kind: 'text', text: part.value });
          onText?.(part.value);
        } else if (part instanceof vscode.LanguageModelToolCallPart) {
          // vscode.lm hands over a tool call whole: its one delta carries all the arguments.
          const call: ToolCall = { id: part.callId, name: part.name, arguments: part.input, rawArguments: JSON.stringify(part.input) };
          toolCalls.push(call);
          request.onDelta?.({ kind: 'tool', callId: call.id, name: call.name, argumentsText: call.rawArguments });
        }
      }
      // A cancelled stream may just end: never pass a cut-off answer off as complete.
      if (request.signal?.aborted) throw new ModelStoppedError(text, this.provider);
    } catch (error) {
      if (request.signal?.aborted) throw error instanceof ModelStoppedError ? error : new ModelStoppedError(text, this.provider);
      throw toModelError(error, this.model);
    } finally {
      request.signal?.removeEventListener('abort', onAbort);
      cancel.dispose();
    }
    const inputTokens = await this.countTokens(messages);
    const outputTokens = await this.countTokens([vscode.LanguageModelChatMessage.Assistant(text + toolCalls.map((c) => c.rawArguments).join(''))]);
    return {
      text,
      toolCalls,
      usage: { inputTokens, outputTokens, cacheReadTokens: 0, cacheWriteTokens: 0 },
      stopReason: toolCalls.length > 0 ? 'tool_calls' : 'end',
      model: this.model,
    };
  }

  private async countTokens(messages: vscode.LanguageModelChatMessage[]): Promise<number> {
    let total = 0;
    for (const message of messages) {
      try {
        total += await this.chat.countTokens(message);
      } catch {
        // A provider that cannot count: estimate, so budgets still move.
        total += Math.ceil(JSON.stringify(message.content).length / 4);
      }
    }
    return total;
  }
}

function toLmMessage(message: ModelMessage): vscode.LanguageModelChatMessage {
  switch (message.role) {
    case 'user':
      return vscode.LanguageModelChatMessage.User(message.content);
    case 'assistant': {
      const parts: Array<vscode.LanguageModelTextPart | vscode.LanguageModelToolCallPart> = [];
      if (message.content) parts.push(new vscode.LanguageModelTextPart(message.content));
      for (const call of message.toolCalls ?? []) {
        const input = call.arguments && typeof call.arguments === 'object' ? (call.arguments as object) : {};
        parts.push(new vscode.LanguageModelToolCallPart(call.id, call.name, input));
      }
      return vscode.LanguageModelChatMessage.Assistant(parts);
    }
    case 'tool':
      return vscode.LanguageModelChatMessage.User([
        new vscode.LanguageModelToolResultPart(message.toolCallId, [new vscode.LanguageModelTextPart(message.content)]),
      ]);
  }
}

function toModelError(error: unknown, model: string): ModelError {
  if (error instanceof ModelError) return error;
  if (error instanceof vscode.CancellationError) return new ModelError('cancelled', 'The request was cancelled.');
  const message = error instanceof Error ? error.message : String(error);
  if (error instanceof vscode.LanguageModelError) {
    if (error.code === vscode.LanguageModelError.NoPermissions.name) {
      return new ModelError('auth', `VS Code did not allow Tasklane to use ${model}: ${message}. Allow it when VS Code asks, or run 'Tasklane: Select Model'.`);
    }
    if (error.code === vscode.LanguageModelError.NotFound.name) {
      return new ModelError('not_found', `The language model ${model} is no longer available. Run 'Tasklane: Select Model'.`);
    }
    if (error.code === vscode.LanguageModelError.Blocked.name) {
      return new ModelError('rate_limit', `${model} is blocked for now (quota or rate limit): ${message}`);
    }
  }
  return new ModelError('server', `${model} failed: ${message}`);
}

/** The first chat model VS Code offers, optionally by id, or undefined if there is none. */
export async function selectLmChat(modelId?: string): Promise<vscode.LanguageModelChat | undefined> {
  const models = await vscode.lm.selectChatModels(modelId ? { id: modelId } : {});
  return models[0];
}
