import type { ModelClient, ModelRequest, ModelResponse } from '../../src/core/model/types';

/** One scripted answer of the in-process model. */
export interface InstantStep {
  text?: string;
  toolCalls?: Array<{ name: string; arguments: Record<string, unknown> }>;
}

/**
 * An in-process ModelClient that answers instantly from a script, with no HTTP: the benchmark
 * uses it to measure the engine's own overhead. Tests that exercise the wire use the scripted
 * model server and the real SDK clients instead.
 */
export class InstantModel implements ModelClient {
  readonly provider = 'instant';
  readonly model = 'instant';
  readonly requests: ModelRequest[] = [];
  private readonly steps: InstantStep[] = [];
  private counter = 0;

  script(steps: InstantStep[]): void {
    this.steps.push(...steps);
  }

  async complete(request: ModelRequest): Promise<ModelResponse> {
    this.requests.push(request);
    const step = this.steps.shift() ?? { text: 'done' };
    const toolCalls = (step.toolCalls ?? []).map((c) => {
      const rawArguments = JSON.stringify(c.arguments);
      return { id: `call_${++this.counter}`, name: c.name, rawArguments, arguments: c.arguments };
    });
    const chars = JSON.stringify(request).length;
    return {
      text: step.text ?? '',
      toolCalls,
      usage: { inputTokens: Math.ceil(chars / 4), outputTokens: 20, cacheReadTokens: 0, cacheWriteTokens: 0 },
      stopReason: toolCalls.length ? 'tool_calls' : 'end',
      model: this.model,
    };
  }
}
