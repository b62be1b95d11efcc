/**
 * Tool calls written as text. An OpenAI-compatible server whose chat template does not turn a
 * model's tool call into `tool_calls` hands it over in the message content instead: the
 * Hermes / Qwen form `<tool_call>{"name": …, "arguments": {…}}</tool_call>` (as Ollama, vLLM and
 * llama.cpp pass it through when no tool parser is configured), or the Llama 3.x form, a bare
 * JSON object `{"name": …, "parameters": {…}}` (alone, or in a fenced block). Read as text, such a
 * turn would be a reply with no action. Only calls to a tool the request offered are recovered,
 * and a bare object only when it is the whole message, so prose that mentions JSON stays prose.
 */
import { toToolCall } from './clientOptions';
import type { ModelResponse, ToolSpec } from './types';

const TAGGED = /<tool_call>\s*([\s\S]*?)\s*<\/tool_call>/g;

/** `response` with the tool calls its text carries moved into `toolCalls`; unchanged when it has real ones or none are found. */
export function recoverTextToolCalls(response: ModelResponse, tools: readonly ToolSpec[]): ModelResponse {
  if (response.toolCalls.length > 0 || !response.text.trim() || tools.length === 0) return response;
  const offered = new Set(tools.map((t) => t.name));
  const tagged = [...response.text.matchAll(TAGGED)].map((m) => callOf(m[1], offered));
  if (tagged.length > 0) {
    if (tagged.some((c) => c === undefined)) return response;
    const rest = response.text.replace(TAGGED, '').trim();
    return withCalls(response, tagged as Call[], rest);
  }
  const fenced = /^```(?:json)?\s*\n([\s\S]*?)\n?```$/i.exec(response.text.trim());
  const whole = (fenced ? fenced[1] : response.text).trim();
  const parsed = parse(whole);
  const list = Array.isArray(parsed) ? parsed : [parsed];
  const calls = list.map((item) => callOf(item, offered));
  if (calls.length === 0 || calls.some((c) => c === undefined)) return response;
  return withCalls(response, calls as Call[], '');
}

type Call = { name: string; rawArguments: string };

function callOf(source: unknown, offered: ReadonlySet<string>): Call | undefined {
  const value = typeof source === 'string' ? parse(source) : source;
  if (!value || typeof value !== 'object' || Array.isArray(value)) return undefined;
  const record = value as Record<string, unknown>;
  const name = typeof record.name === 'string' ? record.name : undefined;
  if (!name || !offered.has(name)) return undefined;
  const args = record.arguments ?? record.parameters ?? {};
  // Some templates send the arguments as a JSON string already.
  return { name, rawArguments: typeof args === 'string' ? args : JSON.stringify(args) };
}

function withCalls(response: ModelResponse, calls: Call[], text: string): ModelResponse {
  return {
    ...response,
    text,
    toolCalls: calls.map((c, i) => toToolCall(`call_text_${i}`, c.name, c.rawArguments)),
    stopReason: 'tool_calls',
  };
}

function parse(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}
