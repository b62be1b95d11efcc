/**
 * How a chore run reads the ways a real model ends its work, pure so each is tested alone:
 *  - a final JSON object written in prose instead of passed to task_end (OpenAI-compatible servers
 *    and vscode-lm models that ignore a forced tool call do this): {@link jsonInProse};
 *  - an honest give-up such as `{"status": "needs_human"}`, which the shipped templates offer:
 *    {@link terminalAnswer}; it ends the run at once instead of being re-prompted.
 * The runner (choreRunner.ts) decides when to nudge and when to end; these only read.
 */
import type { SuccessVerdict } from './expressions';

/**
 * The `status` values of a run's output that end it at once, whatever successWhen says, and are
 * never retried: the agent says a person must act. `needs_human` always counts (the shipped
 * templates offer it); a chore adds its own with `terminalStatuses` in chores.yaml.
 */
export const TERMINAL_ANSWERS: readonly string[] = ['needs_human'];

/** The give-up an output carries (`status` in {@link TERMINAL_ANSWERS} or the chore's `declared` ones) and why, if it carries one. */
export function terminalAnswer(output: unknown, declared: readonly string[] = []): { answer: string; cause?: string } | undefined {
  if (!output || typeof output !== 'object' || Array.isArray(output)) return undefined;
  const record = output as Record<string, unknown>;
  const status = typeof record.status === 'string' ? record.status.trim().toLowerCase() : undefined;
  if (!status || !(TERMINAL_ANSWERS.includes(status) || declared.includes(status))) return undefined;
  const why = record.cause ?? record.reason ?? record.why;
  return { answer: status, ...(typeof why === 'string' && why.trim() ? { cause: why.trim().slice(0, 500) } : {}) };
}

/**
 * The last JSON object in a model's prose: the last fenced block that parses, else the whole
 * text, else the last balanced `{…}` in it (strings and escapes respected). Arrays and scalars
 * are not an output (successWhen judges an object).
 */
export function jsonInProse(text: string): Record<string, unknown> | undefined {
  const candidates: string[] = [];
  for (const match of text.matchAll(/```[a-z]*\s*\n([\s\S]*?)```/gi)) candidates.unshift(match[1]);
  candidates.push(text);
  for (const candidate of candidates) {
    const parsed = asObject(candidate);
    if (parsed) return parsed;
  }
  const objects = balancedObjects(text);
  for (let i = objects.length - 1; i >= 0; i -= 1) {
    const parsed = asObject(objects[i]);
    if (parsed) return parsed;
  }
  return undefined;
}

/**
 * Whether an object found in prose may stand for the run's output: it must be an object, and a
 * chore with a successWhen must be able to judge it (true or false; an expression error means the
 * object is not the shape the chore expects, e.g. an example the model quoted).
 */
export function acceptedAsOutput(verdict: SuccessVerdict | undefined): boolean {
  return verdict === undefined || verdict.result !== 'error';
}

function asObject(text: string): Record<string, unknown> | undefined {
  try {
    const value = JSON.parse(text.trim()) as unknown;
    return value && typeof value === 'object' && !Array.isArray(value) ? (value as Record<string, unknown>) : undefined;
  } catch {
    return undefined;
  }
}

/** Every outermost `{…}` span of `text`, in order. */
function balancedObjects(text: string): string[] {
  const spans: string[] = [];
  let depth = 0;
  let start = -1;
  let inString = false;
  for (let i = 0; i < text.length; i += 1) {
    const c = text[i];
    if (inString) {
      if (c === '\\') i += 1;
      else if (c === '"') inString = false;
      continue;
    }
    if (c === '"' && depth > 0) inString = true;
    else if (c === '{') {
      if (depth === 0) start = i;
      depth += 1;
    } else if (c === '}' && depth > 0) {
      depth -= 1;
      if (depth === 0) spans.push(text.slice(start, i + 1));
    }
  }
  return spans;
}
