/**
 * Recall: `search_history` lets a task look up what the agent did before (its
 * tasks, chore runs and conversations, archived ones included) instead of guessing or redoing it.
 * Read-only; what it returns was written by earlier turns (redacted when stored), so it is data.
 *
 * A chore's run searches only that chore's own earlier runs (review 2026-12c finding 13): a chore
 * the repository ships must not read the person's conversations, task names or summaries, nor
 * test a guess against them one character at a time. The caller passes the scope
 * (`HistoryScope`) from the task the action runs in.
 */
import * as z from 'zod/v4';
import type { HistoryHit } from '../engine/types';
import { ACTION_SETS } from './actionSets';
import { defineAction } from './types';
import type { ActionContext, ActionDef } from './types';

/** Whose history a search may see: everything (the person's own tasks) or one chore's runs. */
export type HistoryScope = { choreId: string } | undefined;

/** Hits one search returns at most; each is one line. */
const MAX_HITS = 20;

/** The action over the agent's history search (History.search). */
export function searchHistoryAction(
  search: (query: string, limit: number, ctx: ActionContext) => Promise<{ hits: HistoryHit[]; scope: HistoryScope }>,
): ActionDef {
  return defineAction({
    name: 'search_history',
    description: 'Search your own past tasks, chore runs and conversations (names, instructions, summaries, transcripts), archived ones too.',
    input: z.object({ query: z.string().trim().min(1), limit: z.coerce.number().int().min(1).max(MAX_HITS).default(10) }),
    // A conversation turn makes one model call and keeps no tool result, so recall is a task's.
    actionSets: [ACTION_SETS.read],
    parallelizable: true,
    irreversible: false,
    approval: 'never',
    async run(input, ctx) {
      const { hits, scope } = await search(input.query, input.limit, ctx);
      if (!hits.length) return `nothing in ${scope ? `the earlier runs of the chore ${scope.choreId}` : 'the history'} mentions "${input.query}"`;
      return hits.map(historyLine).join('\n');
    },
  });
}

/** `2026-11-30 task "Fix greet" (task · completed · …) session s-1, archived`: one line, no newline inside. */
export function historyLine(hit: HistoryHit): string {
  const day = new Date(hit.at).toISOString().slice(0, 10);
  const flat = (text: string) => text.replace(/\s+/g, ' ').trim();
  return `- ${day} ${hit.kind} ${JSON.stringify(flat(hit.title))} (${flat(hit.detail)}) session ${hit.sessionId}${hit.archived ? ', archived' : ''}`;
}
