/**
 * What a long task keeps of the history a cut drops (issue 39). A task's history is cut at a turn
 * boundary when it passes a size bound (taskTurn.ts); without more, the model would forget what
 * the person said, which files it already touched and what already failed. So the cut folds the
 * dropped events into a summary, built from the events alone (no model call: deterministic,
 * free, and the same bytes on every turn until the next cut, so the cached prefix stays cached).
 * The task's instruction and its todo list need no summary: the instruction is in the prefix and
 * the todo list in the status line the first turn after a cut sends again.
 */
import type { TaskEvent } from './types';

/** The dropped part of a task's history, merged over every cut so far. */
export interface HistorySummary {
  /** Turns summarised. */
  turns: number;
  /** What the person said (their messages, replies, Continue), oldest first. */
  said: string[];
  /** Paths each action touched, by action name, in first-touch order. */
  files: Record<string, string[]>;
  /** Calls that failed, with their error, oldest first. */
  failed: string[];
}

/** Caps, so the summary stays a small fraction of the history it replaces. */
const KEEP = { said: 12, failed: 12, filesPerAction: 40, chars: 240 };

const PERSON_KINDS = new Set(['user_message', 'late', 'resume']);

function clip(text: string): string {
  const flat = text.replace(/\s+/g, ' ').trim();
  return flat.length > KEEP.chars ? `${flat.slice(0, KEEP.chars)}…` : flat;
}

function pathOf(input: unknown): string | undefined {
  if (!input || typeof input !== 'object') return undefined;
  const record = input as Record<string, unknown>;
  const value = record.path ?? record.file ?? record.uri;
  return typeof value === 'string' && value.trim() ? value.trim() : undefined;
}

/** Folds the events of seq in [from, to) into `previous`. Pure: the same events give the same summary. */
export function summarizeDropped(events: readonly TaskEvent[], from: number, to: number, previous?: HistorySummary): HistorySummary {
  const summary: HistorySummary = {
    turns: previous?.turns ?? 0,
    said: [...(previous?.said ?? [])],
    files: Object.fromEntries(Object.entries(previous?.files ?? {}).map(([k, v]) => [k, [...v]])),
    failed: [...(previous?.failed ?? [])],
  };
  const calls = new Map<string, { name: string; path?: string }>();
  for (const event of events) {
    if (event.seq < from || event.seq >= to) continue;
    const d = event.data;
    if (event.kind === 'turn') {
      summary.turns += 1;
      for (const call of (d.toolCalls as Array<{ id: string; name: string; rawArguments?: string }> | undefined) ?? []) {
        let input: unknown;
        try {
          input = call.rawArguments ? JSON.parse(call.rawArguments) : undefined;
        } catch {
          input = undefined;
        }
        const path = pathOf(input);
        calls.set(call.id, { name: call.name, ...(path ? { path } : {}) });
      }
    } else if (PERSON_KINDS.has(event.kind) && d.forModel !== false && typeof d.text === 'string') {
      summary.said.push(clip(d.text));
    } else if (event.kind === 'action_end') {
      const call = calls.get(String(d.callId)) ?? { name: String(d.name ?? 'action') };
      if (call.path) {
        const list = (summary.files[call.name] ??= []);
        if (!list.includes(call.path)) list.push(call.path);
      }
      if (typeof d.error === 'string') summary.failed.push(clip(`${call.name}${call.path ? ` ${call.path}` : ''}: ${d.error}`));
    }
  }
  summary.said = summary.said.slice(-KEEP.said);
  summary.failed = summary.failed.slice(-KEEP.failed);
  for (const name of Object.keys(summary.files)) summary.files[name] = summary.files[name].slice(-KEEP.filesPerAction);
  return summary;
}

/** The summary as the first message of the history after a cut (for the model). */
export function renderSummary(summary: HistorySummary): string {
  const files = Object.entries(summary.files).map(([name, paths]) => `- ${name}: ${paths.join(', ')}`);
  return [
    `[history summary] The first ${summary.turns} turn(s) of this task were cut to keep the request within the model's context. The instruction above still holds; your todo list is in the latest status line. What those turns held:`,
    summary.said.length ? `What the person said, oldest first:\n${summary.said.map((s) => `- ${s}`).join('\n')}` : 'The person said nothing in them.',
    files.length ? `Files touched, by action:\n${files.join('\n')}` : 'No file was touched in them.',
    summary.failed.length ? `What failed (do not repeat it unchanged):\n${summary.failed.map((s) => `- ${s}`).join('\n')}` : 'Nothing failed in them.',
  ].join('\n');
}
