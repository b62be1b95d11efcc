/**
 * Splits a long reply's Markdown into sections that render to exactly the same HTML one by one as
 * the whole reply does at once, so the view can render the part the person sees first and the
 * rest a little later (replyView.ts). Pure (no DOM, no parser): a line scan, cheap next to parsing.
 *
 * A section may start only at a line that begins a new top-level block whatever came before:
 * - the line before is blank, so no paragraph (nor table, blockquote, lazy continuation) is open;
 * - the line starts in column 0 and is not a list marker, so it closes every list item (their
 *   content is indented) and does not continue a list (a marker after a blank line would);
 * - no top-level fenced code block is open, the one block that runs across blank lines and
 *   column-0 lines. Fences are tracked exactly as CommonMark opens and closes them at column 0
 *   (a backtick fence's info string has no backtick; the closer uses the same character, at least
 *   as many, and nothing after it). A fence line indented 1–3 columns may be top-level or inside a
 *   list item, which a line scan cannot tell apart: from the first such line on, the rest of the
 *   reply stays one section (always correct, only less lazy).
 * Link reference definitions can be used before they are defined; markdown.ts gives every
 * section the definitions of the whole reply (`collectReferences`).
 */

/** A section of the reply's source and how it is made (for the placeholder's size estimate). */
export interface ReplySection {
  /** The Markdown of this section (its lines joined by \n). */
  text: string;
  /** Lines of the section. */
  lines: number;
  /** Of which are inside fenced code blocks (a code line is shorter on screen than prose). */
  codeLines: number;
  /** Fenced code blocks the section opens (each has a toolbar and a border). */
  fences: number;
}

const LIST_MARKER = /^(?:[-+*]|\d{1,9}[.)])(?:[ \t]|$)/;
const BLANK = /^[ \t]*$/;
const FENCE_OPEN = /^(?:(`{3,})[^`]*|(~{3,}).*)$/;
const FENCE_CLOSE = /^(`{3,}|~{3,})[ \t]*$/;

/**
 * Whether the line is a fence line (``` or ~~~) indented 1–3 columns (a tab goes to the next
 * multiple of 4): top-level or inside a list item. No allocation: it runs on most lines.
 */
function ambiguousFence(line: string): boolean {
  let column = 0;
  let at = 0;
  for (; at < line.length && column < 4; at++) {
    const ch = line.charCodeAt(at);
    if (ch === 0x20) column++;
    else if (ch === 0x09) column += 4 - (column % 4);
    else break;
  }
  if (column < 1 || column > 3) return false;
  const mark = line.charCodeAt(at);
  return (mark === 0x60 || mark === 0x7e) && line.charCodeAt(at + 1) === mark && line.charCodeAt(at + 2) === mark;
}

/** The newline and NUL normalisation markdown-it applies before parsing (so lines agree). */
export function normalizeSource(text: string): string {
  return text.replace(/\r\n?|\n/g, '\n').replace(/\0/g, '\uFFFD');
}

/**
 * The reply as sections of at least `minLines` lines each (the last may be shorter), split only
 * where the file comment says it is safe. One section when no safe split exists.
 */
export function splitReply(source: string, minLines = 40): ReplySection[] {
  const lines = normalizeSource(source).split('\n');
  const sections: ReplySection[] = [];
  let start = 0;
  let codeLines = 0;
  let fences = 0;
  let fence: { char: string; length: number } | undefined;
  let splittable = true;
  const close = (end: number) => {
    // Blank lines at the end of a section render nothing; leave them out of the estimate too.
    let last = end;
    while (last > start && BLANK.test(lines[last - 1])) last--;
    // (The text keeps them: at the end of the reply they may belong to an unclosed fence.)
    if (last > start) sections.push({ text: lines.slice(start, end).join('\n'), lines: last - start, codeLines, fences });
    start = end;
    codeLines = 0;
    fences = 0;
  };
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i];
    if (splittable && ambiguousFence(line)) splittable = false;
    const first = line.charCodeAt(0);
    const fenceChar = first === 0x60 || first === 0x7e; // ` or ~ (most lines are neither: skip the regexes)
    if (fence) {
      const closer = fenceChar ? FENCE_CLOSE.exec(line) : null;
      if (closer && closer[1][0] === fence.char && closer[1].length >= fence.length) fence = undefined;
      else codeLines++;
      continue;
    }
    if (
      splittable &&
      i > start &&
      i - start >= minLines &&
      BLANK.test(lines[i - 1]) &&
      line !== '' &&
      line[0] !== ' ' &&
      line[0] !== '\t' &&
      !LIST_MARKER.test(line)
    )
      close(i);
    const opener = fenceChar ? FENCE_OPEN.exec(line) : null;
    if (opener) {
      const marks = opener[1] ?? opener[2];
      fence = { char: marks[0], length: marks.length };
      fences++;
    }
  }
  close(lines.length);
  if (sections.length === 0) sections.push({ text: '', lines: 0, codeLines: 0, fences: 0 });
  return sections;
}
