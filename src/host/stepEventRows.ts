/**
 * The step rows of a task's events that are not actions: the person's words and decisions, pauses,
 * warnings, errors and project checks (src/host/stepPresenter.ts writes the actions' rows and
 * sends every other event here). Worded through the host's Translator, each row one whole message.
 */
import { NO_REJECT_REASON } from '../core/approval/changes/changeSetReview';
import type { TaskEvent } from '../core/engine/types';
import type { StepView } from '../shared/threadProtocol';
import type { Translator } from '../shared/translator';
import { isStaleFile, staleFilesWords } from '../shared/changeOutcomeWords';
import { clip, commandOutcome, firstSentence, isRecord, LITERAL_MAX, NOTE_MAX, oneLine, says, seconds, str } from './stepText';

/** Rows of events that are not actions; undefined for what the block shows otherwise or never. */
export function eventRow(l10n: Translator, event: TaskEvent): StepView | undefined {
  const data = event.data;
  const at = { id: `e${event.seq}`, seq: event.seq, rev: event.seq };
  const text = str(data.text);
  switch (event.kind) {
    case 'user_message': {
      // Written to steer the model (a revert it must know of, a chore's check): the person sees
      // what it says for them, if anything.
      if (data.forModel === true)
        return typeof data.shown === 'string' ? { ...at, kind: 'decision', text: [clip(oneLine(data.shown), 200)], state: 'done' } : undefined;
      const decision = /^Approval \S+: (approved|rejected)(?: \(([\s\S]*)\))?$/.exec(text);
      if (decision) return decisionRow(l10n, at, decision[1] as 'approved' | 'rejected', decision[2] ?? '', data.stale);
      return { ...at, kind: 'decision', text: [l10n.t('You said: {0}', clip(oneLine(text), 200))], state: 'done' };
    }
    case 'pause': {
      // Invalid tool calls twice: the calls' own account follows as data (the model's, and the
      // validation's words about its arguments).
      const invalid = typeof data.invalidToolCalls === 'string' ? data.invalidToolCalls : undefined;
      if (invalid !== undefined)
        return { ...at, kind: 'notice', text: [l10n.t('Paused: the model sent invalid tool calls twice')], state: 'done', ...noteOf(invalid) };
      return { ...at, kind: 'notice', text: [pauseRow(l10n, data.reason, text)], state: 'done' };
    }
    case 'resume':
      return { ...at, kind: 'notice', text: [l10n.t('Continued')], state: 'done' };
    case 'restart':
      return { ...at, kind: 'notice', text: [l10n.t('Picked up again after a restart')], state: 'done' };
    case 'warning':
      return { ...at, kind: 'notice', text: [nearBudgetRow(l10n, data.nearBudget) ?? notRunRow(l10n, data.notRun) ?? firstSentence(text)], state: 'done' };
    case 'error':
      if (typeof data.invalidToolCalls === 'string')
        return {
          ...at,
          kind: 'error',
          text: [l10n.t('The model sent invalid tool calls again after a repair turn')],
          state: 'failed',
          ...noteOf(data.invalidToolCalls),
        };
      return { ...at, kind: 'error', text: [firstSentence(text) || l10n.t('Something went wrong')], state: 'failed' };
    case 'check':
      return checkRow(l10n, event.seq, data);
    default:
      return undefined;
  }
}

/**
 * A pause's row, worded here from its reason (the core's PauseReason): the core's own text is
 * English written for its logs and transcript. A model failure keeps the failure's first sentence
 * as a value: it is the provider's (or the SDK's) message, which Tasklane cannot translate.
 */
function pauseRow(l10n: Translator, reason: unknown, text: string): string {
  if (reason === 'budget') return l10n.t('Paused: the task reached its budget');
  if (reason === 'stopped') return l10n.t('Paused: you stopped the task');
  return l10n.t('Paused: the model failed ({0})', firstSentence(text));
}

/** The warning at 80% of a budget (the core says which in `nearBudget`), one message per budget. */
function nearBudgetRow(l10n: Translator, kind: unknown): string | undefined {
  if (kind === 'actions') return l10n.t('80% of the actions budget is used');
  if (kind === 'tokens') return l10n.t('80% of the tokens budget is used');
  if (kind === 'cost') return l10n.t('80% of the cost budget is used');
  return undefined;
}

/**
 * Tool calls of one response the caps left unrun (the core says why in `notRun`: src/core/engine/caps.ts
 * NotRunWhy, with how many), one message per cause; undefined for a warning stored before it.
 */
function notRunRow(l10n: Translator, notRun: unknown): string | undefined {
  if (!isRecord(notRun) || typeof notRun.count !== 'number') return undefined;
  if (notRun.code === 'budget_left' && typeof notRun.left === 'number')
    return l10n.t('{0} tool call(s) of one response were not run: the task has {1} action(s) left in its budget', notRun.count, notRun.left);
  if (notRun.code === 'turn_cap' && typeof notRun.cap === 'number')
    return l10n.t('{0} tool call(s) of one response were not run: a turn runs at most {1} actions', notRun.count, notRun.cap);
  return undefined;
}

/** A row's note of text that is data (the model's invalid calls), on one line and clipped; none when empty. */
function noteOf(text: string): { note?: string } {
  const note = clip(oneLine(text), NOTE_MAX);
  return note ? { note } : {};
}

/**
 * A project check the task's end ran (core/checks/taskChecks.ts): "Checking `npm test`" while it
 * runs, then "Checked `npm test`" with "✓ 12.4 s" or "✗ 2 failing: … · 3.1 s". Its start and end
 * events share a key, so the end patches the start's row.
 */
function checkRow(l10n: Translator, seq: number, data: Record<string, unknown>): StepView {
  const command = { code: clip(str(data.command), LITERAL_MAX) };
  const at = { id: `check:${str(data.key) || seq}`, rev: seq };
  // The end's seq places the row where the start's was: nothing of the task happens between the
  // two (the task waits for its checks), so no other row sorts in between.
  if (typeof data.ok !== 'boolean') return { ...at, seq, kind: 'command', text: says(l10n.t('Checking {0}'), command), state: 'running' };
  const time = typeof data.durationMs === 'number' ? seconds(l10n, data.durationMs) : '';
  const note = data.ok ? `✓ ${time}` : `✗ ${[str(data.gist), time].filter(Boolean).join(' · ')}`;
  return { ...at, seq, kind: 'command', text: says(l10n.t('Checked {0}'), command), state: data.ok ? 'done' : 'failed', note: clip(note, NOTE_MAX) };
}

/** The person's decision on a proposal, in words: what it did to the files or what ran. */
function decisionRow(
  l10n: Translator,
  at: Pick<StepView, 'id' | 'seq' | 'rev'>,
  decision: 'approved' | 'rejected',
  note: string,
  staleFiles: unknown,
): StepView {
  // A change set's outcome is its first line; what the language servers said after the apply
  // follows it (core/approval/changes/changeSetReview.ts describeOutcome), and the person reads it too.
  const [head = '', ...after] = note.split('\n');
  const problems = after.join(' ').trim();
  // Files changed after the proposal: nothing was written, whatever was decided.
  const stale = /^The change was not applied: ([\s\S]*)\.$/.exec(note)?.[1];
  if (stale !== undefined) {
    // Which files changed, as the core's data (a decision stored before it carries its English).
    const files = Array.isArray(staleFiles) ? staleFiles.filter(isStaleFile) : [];
    const said = files.length ? clip(staleFilesWords(files, l10n), NOTE_MAX) : firstSentence(stale);
    return { ...at, kind: 'decision', text: [l10n.t('Not applied: the files changed since the proposal')], state: 'failed', note: said };
  }
  if (decision === 'rejected') {
    const why = /^The change was rejected: ([\s\S]*?)\. Nothing was written\.$/.exec(note)?.[1];
    // The person's own words are quoted back; the stand-in said to the model when they gave none is not.
    const said = why && why !== 'no reason given' && why !== NO_REJECT_REASON ? clip(oneLine(why), 120) : '';
    const words = why === undefined ? l10n.t('You rejected it') : said ? l10n.t('You rejected the change: “{0}”', said) : l10n.t('You rejected the change');
    return { ...at, kind: 'rejection', text: [words], state: 'done' };
  }
  const applied =
    /^The change was approved and applied: (.*)\.$/.exec(head)?.[1] ?? /^The change was partly approved\. Applied: (.*?)\. Rejected/.exec(head)?.[1];
  if (applied)
    return { ...at, kind: 'decision', text: [l10n.t('You approved; applied {0}', applied)], state: 'done', ...(problems ? { note: clip(problems, 300) } : {}) };
  const command = /^`([\s\S]+?)`(?= exited| was| could)/.exec(note);
  const ran = commandOutcome(l10n, note);
  if (command && ran)
    return {
      ...at,
      kind: 'command',
      text: says(l10n.t('You approved; ran {0}'), { code: clip(command[1] ?? '', LITERAL_MAX) }),
      state: ran.failed ? 'failed' : 'done',
      note: ran.note,
    };
  return { ...at, kind: 'decision', text: [l10n.t('You approved it')], state: 'done' };
}
