/**
 * The text a language-model tool's confirmation shows of what another agent asks Tasklane to do
 * (review 2026-12b finding 4). The person approves exactly what runs, so the whole instruction is
 * shown: invisible and reordering characters written out, long runs of blank space collapsed to
 * a visible marker (padding cannot push the real instruction out of view). One too long to show
 * in a confirmation is refused, never cut. No `vscode` import: unit-tested directly.
 */
import { showInvisible } from '../../shared/visibleText';
import { MAX_DIALOG_DETAIL } from '../dialogText';

/** Longest instruction (as shown) a confirmation carries, all of it in one modal; a longer one is refused. */
export const MAX_CONFIRMED_CHARS = MAX_DIALOG_DETAIL;

/** The instruction as the confirmation shows it, or why it cannot be confirmed. */
export function confirmationText(text: string, what = 'instruction'): { shown: string } | { refused: string } {
  const shown = showInvisible(text)
    // Runs of spaces/tabs: three or more become a marker that says how many.
    .replace(/[ \t]{3,}/g, (run) => ` ⟨${run.length} blanks⟩ `)
    // Runs of blank lines likewise.
    .replace(/\n(?:[ \t]*\n){2,}/g, (run) => `\n⟨${run.split('\n').length - 1} line breaks⟩\n`);
  if (shown.length > MAX_CONFIRMED_CHARS)
    return {
      refused: `The ${what} is ${shown.length} characters as shown; the person must see all of what Tasklane runs, and a confirmation can show at most ${MAX_CONFIRMED_CHARS}. Shorten it (put long material in a workspace file the task reads) and call the tool again.`,
    };
  return { shown };
}

/** Markdown blockquote of shown text (each line quoted). */
export function quoted(shown: string): string {
  return `> ${shown.replace(/\n/g, '\n> ')}`;
}

/**
 * The question of the modal that asks before another agent's task is queued: what the task may
 * do, so the person reads it next to the instruction (the modal's detail, at most
 * MAX_CONFIRMED_CHARS, so the modal never cuts it).
 */
export function startTaskQuestion(mode: string, budget?: Readonly<Record<string, unknown>>): string {
  const limits =
    budget && Object.keys(budget).length
      ? ` Budget: ${Object.entries(budget)
          .map(([k, v]) => `${k} ${String(v)}`)
          .join(', ')}.`
      : '';
  return `Queue a durable Tasklane task? Another agent asks Tasklane to run this ${mode} task in the background, with your model and budget. It can read this workspace and report back to the agent that asked; it cannot edit files, run commands or use MCP tools, nor can any task it starts.${limits} Its whole instruction follows.`;
}
