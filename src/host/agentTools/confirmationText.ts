/**
 * The text a language-model tool's confirmation shows of what another agent asks Tasklane to do
 * (review 2026-12b finding 4). The person approves exactly what runs, so the whole instruction is
 * shown: invisible and reordering characters written out, long runs of blank space collapsed to
 * a visible marker (padding cannot push the real instruction out of view). One too long to show
 * in a confirmation is refused, never cut. No `vscode` import: unit-tested directly.
 */
import { showInvisible } from '../../shared/visibleText';

/** Longest instruction (as shown) a confirmation carries; a longer one is refused. */
export const MAX_CONFIRMED_CHARS = 2000;

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
