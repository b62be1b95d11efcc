/**
 * How a modal shows a long text (review 2026-12b finding 16): whole, or its start with a line
 * saying how much is left and how to read it. No `vscode` import, so it is unit-tested directly.
 */

/** Characters of a modal's detail shown at once; the rest is one click away ("Show All"). */
export const MAX_DIALOG_DETAIL = 2000;

/** The button that opens the whole text. */
export const SHOW_ALL = 'Show All';

/** The detail as the modal shows it: whole, or its start and a line saying what is left out. */
export function cutDetail(detail: string, max: number = MAX_DIALOG_DETAIL): { shown: string; cut: boolean } {
  if (detail.length <= max) return { shown: detail, cut: false };
  return {
    shown: `${detail.slice(0, max)}…\n\n(Shown: the first ${max} of ${detail.length} characters. Choose "${SHOW_ALL}" to read the rest before you decide.)`,
    cut: true,
  };
}
