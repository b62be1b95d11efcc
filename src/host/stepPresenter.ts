/**
 * A task's events as step rows written for people ("Read src/greet.js", "Ran `npm run build`
 * ✓ 1.5 s"), the rows of the task's block in the thread. The raw events stay the task's details
 * view (viewMapping.ts `toTraceEvent`). Pure: no VS Code, no I/O; one presenter remembers the
 * inputs of actions under way, since an action's end does not repeat them. Its words go through a
 * Translator (the host's vscode.l10n; English in the unit tier), each row one whole message with
 * `{0}` where a path or a literal goes, so a translation may put it anywhere.
 */
import { countListed, countShownMatches } from '../core/actions/readResults';
import type { TaskEvent } from '../core/engine/types';
import type { StepKind, StepText, StepView } from '../shared/threadProtocol';
import { ENGLISH } from '../shared/translator';
import type { Translator } from '../shared/translator';
import { eventRow } from './stepEventRows';
import { clip, commandOutcome, firstSentence, isRecord, LITERAL_MAX, NOTE_MAX, notRunNote, oneLine, says, str } from './stepText';

/** Kept where the tests and callers have long found it. */
export { firstSentence } from './stepText';

/** What an action's start said, kept until its end. */
interface Started {
  name: string;
  input: Record<string, unknown>;
  seq: number;
  /** Progress notes shown so far: each is a newer version of the row (`rev`), still older than its end. */
  notes: number;
}

/** Actions under way kept per task at most (a turn runs at most a few dozen). */
const STARTED_KEPT = 200;

/** Writes step rows from events, one task's or many tasks' (live events of every task arrive here). */
export class StepPresenter {
  private readonly started = new Map<string, Map<string, Started>>();

  constructor(private readonly l10n: Translator = ENGLISH) {}

  /** The row `event` makes or changes, if it makes one. */
  present(taskId: string, event: TaskEvent): StepView | undefined {
    const data = event.data;
    const callId = typeof data.callId === 'string' ? data.callId : undefined;
    if (event.kind === 'action_start' && callId) {
      const name = str(data.name);
      const input = isRecord(data.input) ? data.input : {};
      const open = this.started.get(taskId) ?? new Map<string, Started>();
      if (open.size >= STARTED_KEPT) open.delete(open.keys().next().value as string);
      open.set(callId, { name, input, seq: event.seq, notes: 0 });
      this.started.set(taskId, open);
      return actionRow(this.l10n, callId, event.seq, event.seq, name, input, undefined);
    }
    if (event.kind === 'action_end' && callId) {
      const open = this.started.get(taskId);
      const start = open?.get(callId);
      open?.delete(callId);
      const name = start?.name ?? str(data.name);
      return actionRow(this.l10n, callId, start?.seq ?? event.seq, event.seq, name, start?.input ?? {}, {
        output: typeof data.output === 'string' ? data.output : undefined,
        error: typeof data.error === 'string' ? data.error : undefined,
        durationMs: typeof data.durationMs === 'number' ? data.durationMs : undefined,
        notRun: data.notRun,
      });
    }
    if (event.kind === 'task_end') this.started.delete(taskId);
    return eventRow(this.l10n, event);
  }

  /**
   * The running row of an action with its latest progress note ("2/3 (67%): step 2"); undefined
   * once it ended or when its start was not seen. Its `rev` lies between the start's seq and the
   * end's (the next event's seq at the least), so the end's row always replaces it.
   */
  progress(taskId: string, callId: string, note: string): StepView | undefined {
    const start = this.started.get(taskId)?.get(callId);
    if (!start) return undefined;
    start.notes++;
    const row = actionRow(this.l10n, callId, start.seq, start.seq + 1 - 1 / (start.notes + 1), start.name, start.input, undefined);
    return row && { ...row, note: clip(note, NOTE_MAX) };
  }
}

/** The rows of a page of events (oldest first), each in its last version, in order. */
export function presentSteps(taskId: string, events: readonly TaskEvent[], l10n: Translator = ENGLISH): StepView[] {
  const presenter = new StepPresenter(l10n);
  const rows = new Map<string, StepView>();
  for (const event of events) {
    const row = presenter.present(taskId, event);
    if (row) rows.set(row.id, row);
  }
  return [...rows.values()].sort((a, b) => a.seq - b.seq);
}

/**
 * What the task's latest turn that spoke said (a `turn` event's text), trimmed; undefined when no
 * turn of `events` said anything. A block shows a task's words while it works and keeps them until
 * its next turn speaks (src/webview/streamView.ts); a page made afresh (a window reload) has no
 * stream to take them from, so it shows these instead: the same words, once.
 */
export function lastSaid(events: readonly TaskEvent[]): string | undefined {
  for (let i = events.length - 1; i >= 0; i--) {
    const event = events[i];
    if (event?.kind !== 'turn') continue;
    const text = typeof event.data.text === 'string' ? event.data.text.trim() : '';
    if (text) return text;
  }
  return undefined;
}

interface Outcome {
  output?: string;
  error?: string;
  durationMs?: number;
  /** The core's code when the call was not run at all (src/core/engine/types.ts NotRun). */
  notRun?: unknown;
}

function actionRow(
  l10n: Translator,
  id: string,
  seq: number,
  rev: number,
  name: string,
  input: Record<string, unknown>,
  end: Outcome | undefined,
): StepView | undefined {
  const row = (kind: StepKind, text: StepText, note?: string, failed = false): StepView => ({
    id,
    seq,
    rev,
    kind,
    text,
    state: !end ? 'running' : failed || end.error !== undefined ? 'failed' : 'done',
    ...(note ? { note: clip(note, NOTE_MAX) } : {}),
  });
  const failure = end?.error !== undefined ? (notRunNote(l10n, end.notRun) ?? firstSentence(end.error)) : undefined;
  const path = str(input.path);
  switch (name) {
    case 'read_file': {
      const lines = input.startLine || input.endLine ? ([str(input.startLine) || '1', str(input.endLine) || l10n.t('end')] as const) : undefined;
      if (!end) return row('read', [lines ? l10n.t('Reading {0} lines {1}–{2}', path, ...lines) : l10n.t('Reading {0}', path)]);
      if (failure) return row('read', [l10n.t('Could not read {0}', path)], failure);
      return row('read', [lines ? l10n.t('Read {0} lines {1}–{2}', path, ...lines) : l10n.t('Read {0}', path)]);
    }
    case 'list_files': {
      const dir = str(input.dir) || '.';
      const all = dir === '.';
      if (!end) return row('list', [all ? l10n.t('Listing the workspace') : l10n.t('Listing {0}', dir)]);
      if (failure) return row('list', [all ? l10n.t('Could not list the workspace') : l10n.t('Could not list {0}', dir)], failure);
      const count = countListed(end.output ?? '');
      return row('list', [all ? l10n.t('Listed the workspace') : l10n.t('Listed {0}', dir)], count === 1 ? l10n.t('1 entry') : l10n.t('{0} entries', count));
    }
    case 'search_text': {
      const query = { code: clip(str(input.query), LITERAL_MAX) };
      if (!end) return row('search', says(l10n.t('Searching for {0}'), query));
      if (failure) return row('search', says(l10n.t('Could not search for {0}'), query), failure);
      const { matches, more } = countShownMatches(end.output ?? '');
      return row(
        'search',
        says(l10n.t('Searched for {0}'), query),
        matches === 1 && !more ? l10n.t('1 hit') : l10n.t('{0} hits', `${matches}${more ? '+' : ''}`),
      );
    }
    case 'replace_in_file':
    case 'write_file':
    case 'create_file':
    case 'delete_file':
    case 'rename_file':
      return editRow(l10n, row, name, path, str(input.newPath), end, failure);
    case 'rename_symbol': {
      const what = [{ code: clip(str(input.symbol), LITERAL_MAX) }, { code: clip(str(input.newName), LITERAL_MAX) }] as const;
      if (!end) return row('edit', says(l10n.t('Proposing to rename {0} → {1}'), ...what));
      if (failure) return row('edit', says(l10n.t('Could not rename {0} → {1}'), ...what), failure);
      if (end.output?.startsWith('The change was approved and applied'))
        return row('edit', says(l10n.t('Renamed {0} → {1}'), ...what), l10n.t('applied without asking'));
      return row('edit', says(l10n.t('Proposed renaming {0} → {1}'), ...what));
    }
    case 'read_git': {
      const what = str(input.what);
      if (!end) return row('read', [path ? l10n.t('Reading git {0} of {1}', what, path) : l10n.t('Reading git {0}', what)]);
      if (failure) return row('read', [path ? l10n.t('Could not read git {0} of {1}', what, path) : l10n.t('Could not read git {0}', what)], failure);
      return row('read', [path ? l10n.t('Read git {0} of {1}', what, path) : l10n.t('Read git {0}', what)]);
    }
    case 'run_command':
    case 'run_task': {
      const task = name === 'run_task';
      const what = { code: clip(str(task ? input.name : input.command), LITERAL_MAX) };
      if (!end) return row('command', says(task ? l10n.t('Running task {0}') : l10n.t('Running {0}'), what));
      if (failure) return row('command', says(task ? l10n.t('Could not run task {0}') : l10n.t('Could not run {0}'), what), failure);
      if (end.output?.startsWith('Asked the user to approve'))
        return row('command', says(task ? l10n.t('Asked to run task {0}') : l10n.t('Asked to run {0}'), what), l10n.t('waiting for your approval'));
      const ran = commandOutcome(l10n, end.output ?? '');
      return row('command', says(task ? l10n.t('Ran task {0}') : l10n.t('Ran {0}'), what), ran?.note, ran?.failed);
    }
    case 'ask_user':
      return row('ask', [l10n.t('Asked you: {0}', clip(oneLine(str(input.question)), 200))], failure);
    case 'task_start': {
      const started = row('task', [l10n.t('Started task “{0}”', clip(str(input.name), LITERAL_MAX))], failure);
      // The thread draws the task it started here, as a block nested in this one's.
      const taskId = /^started task (\S+)$/.exec(end?.output ?? '')?.[1];
      return taskId && !failure ? { ...started, taskId } : started;
    }
    case 'wait':
      return row('notice', [l10n.t('Waited {0} s', str(input.seconds))], failure);
    case 'remember':
      return row('notice', [l10n.t('Proposed a memory note')], failure);
    // Shown elsewhere on the block (todos, summary) or in the task's own transcript.
    case 'update_todos':
    case 'task_end':
    case 'send_message':
      if (!failure) return undefined;
      if (name === 'update_todos') return row('error', [l10n.t('Could not update the todo list')], failure);
      return row('error', [name === 'task_end' ? l10n.t('Could not end the task') : l10n.t('Could not send the message')], failure);
    default: {
      const mcp = /^mcp_([^_]+)_(.+)$/.exec(name);
      const tool = mcp ? says(l10n.t('Used {0} from {1}'), { code: mcp[2] ?? '' }, mcp[1] ?? '') : says(l10n.t('Used {0}'), { code: name });
      return row('tool', tool, failure);
    }
  }
}

function editRow(
  l10n: Translator,
  row: (kind: StepKind, text: StepText, note?: string, failed?: boolean) => StepView,
  name: string,
  path: string,
  newPath: string,
  end: Outcome | undefined,
  failure: string | undefined,
): StepView {
  const target = name === 'rename_file' ? `${path} → ${newPath}` : path;
  // Each verb has its whole sentences: [proposing, could not propose, proposed].
  const [proposing, couldNot, proposed] =
    name === 'create_file'
      ? [l10n.t('Proposing creating {0}', target), l10n.t('Could not propose creating {0}', target), l10n.t('Proposed creating {0}', target)]
      : name === 'delete_file'
        ? [l10n.t('Proposing deleting {0}', target), l10n.t('Could not propose deleting {0}', target), l10n.t('Proposed deleting {0}', target)]
        : name === 'rename_file'
          ? [l10n.t('Proposing renaming {0}', target), l10n.t('Could not propose renaming {0}', target), l10n.t('Proposed renaming {0}', target)]
          : [l10n.t('Proposing an edit to {0}', target), l10n.t('Could not propose an edit to {0}', target), l10n.t('Proposed an edit to {0}', target)];
  if (!end) return row('edit', [proposing]);
  if (failure) return row('edit', [couldNot], failure);
  if (end.output?.startsWith('The change was approved and applied')) return row('edit', [l10n.t('Edited {0}', target)], l10n.t('applied without asking'));
  return row('edit', [proposed]);
}
