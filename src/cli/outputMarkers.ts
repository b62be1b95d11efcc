/**
 * Tasklane's hidden markers on what it writes to GitHub, and the cleaning of proposed text so no
 * model-written words carry one. Every written text ends with its marker, so comments update in
 * place, issues are not filed twice and Tasklane never fires on its own writes.
 */

/** The hidden marker of a chore's outputs; `extra` makes it unique per issue. */
export function marker(choreId: string, extra?: string): string {
  return `<!-- tasklane:chore=${choreId}${extra ? ` ${extra}` : ''} -->`;
}

/**
 * Whether `body` is marked `key`: the marker is the body's last line, as Tasklane writes it. A
 * marker quoted inside the text (a patch carried in an issue shows the file it changes, which may
 * hold one) does not make the body Tasklane's record of another output.
 */
export function endsWithMarker(body: string | null | undefined, key: string): boolean {
  return (body ?? '').trimEnd().endsWith(key);
}

/**
 * Proposed text never carries a marker of its own (it could impersonate another output). Removed
 * until none is left, since removing one can join the text around it into another
 * (`<!-- tas<!-- tasklane:x -->klane:chore=y -->`, review 2026-12c finding 7); what remains of an
 * HTML comment opener is escaped, so no part of the model's text is hidden or read as a marker.
 */
export function cleanProposed(text: string): string {
  let out = text;
  for (let before = ''; before !== out;) {
    before = out;
    out = out.replace(/<!--\s*tasklane:[\s\S]*?-->/gi, '');
  }
  return out.replace(/<!--/g, '&lt;!--').trim();
}
