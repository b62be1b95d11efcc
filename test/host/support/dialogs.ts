import * as fs from 'node:fs';
import * as path from 'node:path';
import { until } from './tasklane';

/**
 * Presses `button` on the workbench's next modal dialog (e.g. the confirmation VS Code shows
 * before a language model tool with confirmation messages runs outside a chat) and returns the
 * dialog's text. The host harness's browser does the clicking: an extension host cannot.
 */
export function pressDialogButton(button: string, timeoutMs = 30_000): Promise<string> {
  return askHarness({ button }, `the harness to press "${button}" on a dialog`, timeoutMs);
}

/** Waits until a modal dialog shows and returns its text, leaving it open for pressDialogButton. */
export function dialogShown(timeoutMs = 30_000): Promise<string> {
  return askHarness({ button: null }, 'a modal dialog to show', timeoutMs);
}

/**
 * Types `text` into the input box or quick pick whose title holds `title` once it shows, and
 * presses Enter (on a quick pick, the text filters the items and Enter picks the first match).
 * Returns the widget's text as it was before typing.
 */
export function typeIntoInput(title: string, text: string, timeoutMs = 30_000): Promise<string> {
  return askHarness({ input: text, title }, `the harness to type into the input "${title}"`, timeoutMs);
}

async function askHarness(request: { button: string | null } | { input: string; title: string }, waitingFor: string, timeoutMs: number): Promise<string> {
  const dir = process.env.TASKLANE_HOST_DIALOG_DIR;
  if (!dir) throw new Error('the host harness set no TASKLANE_HOST_DIALOG_DIR');
  const answer = path.join(dir, 'dialog-answer.json');
  fs.rmSync(answer, { force: true });
  // Written whole, then renamed: the harness polls for the file and must never read half of it.
  fs.writeFileSync(path.join(dir, 'dialog-request.json.tmp'), JSON.stringify(request));
  fs.renameSync(path.join(dir, 'dialog-request.json.tmp'), path.join(dir, 'dialog-request.json'));
  const text = await until(
    waitingFor,
    async () => (fs.existsSync(answer) ? (JSON.parse(fs.readFileSync(answer, 'utf8')) as { text: string }).text : undefined),
    timeoutMs,
  );
  fs.rmSync(answer, { force: true });
  return text;
}
