import { showInvisible } from '../../shared/visibleText';

/**
 * The one way untrusted text (a link's id, a model reply, a command line the model asks to run,
 * an MCP server's titles, a file name from the repository, an issue's text) reaches a surface a
 * person reads outside the webview. Each surface has its own active syntax, and a function here
 * that makes it inert, after writing invisible characters out (`showInvisible`: bidi controls,
 * zero-width and control characters, including ESC):
 *
 * | surface | active syntax neutralised |
 * | --- | --- |
 * | VS Code notification, modal | `[label](command:…)` / `(https:…)` / `(file:…)` links, `$(icon)` |
 * | quick pick, status bar, tree item | `$(icon)` codicons, line breaks, length (`forLabel`, `forTooltip`) |
 * | Markdown tooltip (status bar hover) | Markdown links, emphasis, headings, line breaks (`forMarkdown`) |
 * | terminal | ANSI / OSC escapes (ESC is written out as `<U+001B>`), carriage returns |
 * | CI log | `::command::` workflow commands (one line, never starting with `::`) |
 * | Slack | mrkdwn `&`, `<`, `>` (so `<!channel>`, `<url\|text>` are text) |
 * | email | line breaks (one line for a subject; bodies are plain text) |
 * | GitHub Markdown | `<!--` / `-->` (hidden text, Tasklane's own markers) |
 * | Markdown preview (reports) | images `![`, HTML and autolinks `<`, outside fenced code |
 *
 * Literal text written by Tasklane is trusted and passed as is; only the values are neutralised.
 * `notice` is a tagged template for that: `notice\`Tasklane: no run ${id}.\`` neutralises `id`
 * only. The lint rule `tasklane/untrusted-text` (eslint-rules/untrustedText.js) refuses a
 * `show*Message` whose message is anything else than a literal or one of these, and
 * `tasklane/untrusted-label` (eslint-rules/untrustedLabel.js) the same for tree items, the status
 * bar, quick pick items and a modal's detail.
 */

/**
 * VS Code's notification renderer (`linkedText.ts`) makes `[label](target)` a link when the target
 * starts with `https://`, `http://`, `command:` or `file:`; the match needs `](` side by side.
 * A space between the two keeps every character readable and no link is formed, whatever the
 * target. `$(` becomes `$\(` as VS Code's own `escapeIcons` does.
 */
function inertLinks(text: string): string {
  return text.replace(/\]\s*\(/g, '] (').replace(/\$\(/g, '$\\(');
}

/** At most `max` characters (whole code points), the cut marked with `…`. */
function bounded(text: string, max: number): string {
  if (text.length <= max) return text;
  const points = Array.from(text);
  return points.length <= max ? text : `${points.slice(0, max - 1).join('')}…`;
}

/** Line breaks written as one visible mark, so one value cannot forge a second line. */
function oneLine(text: string): string {
  return text.replace(/\r\n|\r|\n/g, ' ⏎ ');
}

/**
 * Characters of one untrusted value in a notification or a modal's message. VS Code cuts a
 * notification's message at 1,000 characters itself; bounding each value keeps Tasklane's own
 * words around it (what happened, what to do next) inside what is shown.
 */
export const NOTIFICATION_VALUE_CHARS = 500;

/** Untrusted text for a VS Code notification or a modal's message or detail (one line, bounded). */
export function forNotification(text: string): string {
  return inertLinks(bounded(showInvisible(oneLine(text)), NOTIFICATION_VALUE_CHARS));
}

/** Untrusted text for a modal's detail: like a notification, but its line breaks stay. */
export function forModalDetail(text: string): string {
  return inertLinks(showInvisible(text));
}

/**
 * A tagged template for notifications: the literal parts are Tasklane's own words, each value is
 * passed through `forNotification`. `notice\`Tasklane: there is no run ${id}.\``.
 */
export function notice(strings: TemplateStringsArray, ...values: unknown[]): string {
  return strings.reduce((out, part, i) => out + part + (i < values.length ? forNotification(String(values[i])) : ''), '');
}

/**
 * Characters of untrusted text one label shows: a row, a status bar item or a quick pick item is one
 * line of a narrow surface, and 10 kB in one would push everything else out of it. Where the whole
 * text matters, the tooltip (`forTooltip`) or the thread shows it.
 */
export const LABEL_CHARS = 200;
/** Characters of untrusted text one tooltip shows (a hover is a few lines, not a document). */
export const TOOLTIP_CHARS = 2000;

/**
 * Untrusted text for a quick pick item, a status bar item or a tree item's label, description or a
 * value inside its tooltip: `$(icon)` written out, one line, invisible characters shown, bounded.
 */
export function forLabel(text: string): string {
  return bounded(showInvisible(oneLine(text)).replace(/\$\(/g, '$\\('), LABEL_CHARS);
}

/**
 * Untrusted text that is a plain-text tooltip by itself (a detail line's whole text): like
 * `forLabel`, but its line breaks stay and it may be longer.
 */
export function forTooltip(text: string): string {
  return bounded(showInvisible(text.replace(/\r\n?/g, '\n')).replace(/\$\(/g, '$\\('), TOOLTIP_CHARS);
}

/**
 * Untrusted text inside a Markdown tooltip (a `MarkdownString` VS Code renders: the status bar's
 * hover): one line, Markdown's own syntax escaped (so `[x](command:…)` is no link, `**` no bold,
 * `#` no heading), invisible characters shown, bounded like a label.
 */
export function forMarkdown(text: string): string {
  // Bounded before escaping, so a cut never splits an escape; `$(` needs no escape here (Tasklane's
  // Markdown tooltips do not turn on `supportThemeIcons`), `(` is escaped anyway.
  return bounded(showInvisible(oneLine(text)), LABEL_CHARS).replace(/[\\`*_[\]<>()#!|~]/g, '\\$&');
}

/**
 * Untrusted text for a terminal: every control character, ESC above all (colours, cursor moves,
 * OSC 8 links, OSC 52 clipboard writes, hidden text), written out; line breaks stay.
 */
export function forTerminal(text: string): string {
  return showInvisible(text.replace(/\r\n/g, '\n'));
}

/**
 * Untrusted text for one line of a CI log. GitHub Actions reads a line that starts (after blanks)
 * with `::` as a workflow command (`::error`, `::add-mask`, `::stop-commands`); the value is made
 * one line, and a leading `::` written out, so it can never start one.
 */
export function forCiLog(text: string): string {
  const line = showInvisible(oneLine(text));
  return line.replace(/^(\s*):/, '$1<U+003A>');
}

/**
 * Untrusted text inside Slack mrkdwn. Slack asks senders to escape `&`, `<` and `>`: with them
 * escaped, `<!channel>`, `<!here>`, `<@U123>` and `<https://x|text>` are shown as text.
 */
export function forSlack(text: string): string {
  return showInvisible(text).replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
}

/** Untrusted text for a mail subject (one line) or body (lines kept). */
export function forEmail(text: string, subject = false): string {
  return showInvisible(subject ? oneLine(text) : text);
}

/**
 * Untrusted text inside GitHub Markdown (a comment, an issue, a review, a check run summary).
 * `<!--` and `-->` are escaped so model text cannot hide part of itself, or forge one of
 * Tasklane's `<!-- tasklane:… -->` markers or fire records, whatever the nesting.
 */
export function forGitHub(text: string): string {
  return showInvisible(text)
    .replace(/<!--/g, '&lt;!--')
    .replace(/--(\s*)>/g, '--$1&gt;');
}

/**
 * A whole report (a history page, a run's trace, a chore's preview: Tasklane's Markdown around
 * model output, tool results and repository text) for VS Code's Markdown preview, which renders it.
 * The preview loads `https:` images and renders HTML, so an image in model text would be fetched
 * the moment the person opens the report (a tracking pixel, or data in its URL). Outside fenced
 * code blocks (which render as text), `![` is escaped to `!\[` and `<` to `\<`: no image, no HTML,
 * no autolink; links stay text until clicked, as in any Markdown the person opens.
 */
export function forMarkdownPreview(markdown: string): string {
  let fence: string | undefined;
  return showInvisible(markdown)
    .split('\n')
    .map((line) => {
      const opens = /^\s{0,3}(`{3,}|~{3,})/.exec(line)?.[1];
      if (fence) {
        if (opens && opens[0] === fence[0] && opens.length >= fence.length && line.trim() === opens) fence = undefined;
        return line;
      }
      if (opens) {
        fence = opens;
        return line;
      }
      return line.replace(/!\[/g, '!\\[').replace(/</g, '\\<');
    })
    .join('\n');
}

/**
 * How a refusal names the id a link carried. Tasklane's ids (`run-…`, `cmd-…`, UUIDs) are short
 * runs of letters, digits, `.`, `_` and `-`; anything else came from whoever wrote the link and is
 * not echoed at all (a web page chooses it), only described.
 */
export function linkIdShown(id: string): string {
  return /^[A-Za-z0-9._-]{1,80}$/.test(id) ? id : "(this link's id, which is not one Tasklane makes)";
}
