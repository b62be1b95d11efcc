/**
 * The pieces a step row is made of (src/host/stepPresenter.ts for actions, stepEventRows.ts for
 * the other events): a translated message split into text and code parts, a command's outcome
 * note, a duration, and the clipping every row applies. Pure, like the rows.
 */
import type { StepText } from '../shared/threadProtocol';
import type { Translator } from '../shared/translator';

/** A row's literal (a command, a query) is at most this long; a note, at most NOTE_MAX. */
export const LITERAL_MAX = 80;
export const NOTE_MAX = 120;

/** A translated message (its `{n}` kept) as a row's text: text values joined into the words, literals kept as code. */
export function says(message: string, ...values: Array<string | { code: string }>): StepText {
  const parts: StepText = [];
  for (const piece of message.split(/(\{\d+\})/)) {
    const at = /^\{(\d+)\}$/.exec(piece);
    const part = at && Number(at[1]) < values.length ? values[Number(at[1])]! : piece;
    const last = parts.length - 1;
    if (typeof part === 'string' && typeof parts[last] === 'string') parts[last] += part;
    else if (part !== '') parts.push(part);
  }
  return parts;
}

/** `describeResult`'s words (commandService.ts) as an outcome note: "✓ 1.5 s", "✗ exit code 2 · 0.3 s". */
export function commandOutcome(l10n: Translator, output: string): { note: string; failed: boolean } | undefined {
  const head = output.split('\n')[0] ?? '';
  const exited = / exited with code (-?\d+|null) in (\d+(?:\.\d+)?) ms\.?$/.exec(head);
  if (exited) {
    const code = exited[1];
    const time = seconds(l10n, Number(exited[2]));
    return code === '0' ? { note: `✓ ${time}`, failed: false } : { note: l10n.t('✗ exit code {0} · {1}', code ?? '', time), failed: true };
  }
  if (/ was stopped after the \d+ s timeout/.test(head)) return { note: l10n.t('✗ timed out'), failed: true };
  if (/ was cancelled by the user/.test(head)) return { note: l10n.t('cancelled'), failed: true };
  const couldNot = / could not run: (.*)$/.exec(head);
  if (couldNot) return { note: firstSentence(couldNot[1] ?? ''), failed: true };
  return undefined;
}

export function seconds(l10n: Translator, ms: number): string {
  return ms < 1000 ? l10n.t('{0} ms', Math.round(ms)) : l10n.t('{0} s', (ms / 1000).toFixed(1));
}

/** The first sentence of a message (what happened; the advice to the model after it is left out). */
export function firstSentence(text: string): string {
  const line = oneLine(text.replace(/^(Error: )+/, ''));
  // A clause after a semicolon is advice to the model ("…; read the file again and retry").
  const end = /[.!?](\s|$)|;\s/.exec(line);
  const sentence = end ? line.slice(0, end.index + 1).replace(/;$/, '.') : line;
  return clip(sentence, NOTE_MAX);
}

export function oneLine(text: string): string {
  return text.replace(/\s+/g, ' ').trim();
}

export function clip(text: string, max: number): string {
  return text.length > max ? `${text.slice(0, max - 1)}…` : text;
}

export function str(value: unknown): string {
  return typeof value === 'string' ? value : typeof value === 'number' ? String(value) : '';
}

export function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/**
 * Why a call was not run, worded from the core's `notRun` on its `action_end` (src/core/engine/types.ts
 * NotRun); undefined for an end stored before it, or another failure, which shows its own text.
 */
export function notRunNote(l10n: Translator, notRun: unknown): string | undefined {
  if (!isRecord(notRun)) return undefined;
  if (notRun.code === 'budget_left' && typeof notRun.left === 'number') return l10n.t('Not run: the task has {0} action(s) left in its budget', notRun.left);
  if (notRun.code === 'turn_cap' && typeof notRun.cap === 'number') return l10n.t('Not run: a turn runs at most {0} actions', notRun.cap);
  if (notRun.code === 'stopped') return l10n.t('Not run: you stopped the task');
  if (notRun.code === 'invalid_siblings') return l10n.t('Not run: other calls of this turn were invalid');
  return undefined;
}
