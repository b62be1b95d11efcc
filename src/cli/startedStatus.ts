/**
 * `tasklane chores status --chore <id>`: the "started" half of one status per item. The generated
 * `status-<id>` job runs it beside the agent job (it holds only the scope of a comment on the item
 * and no model key), so the issue or pull request says at once that Tasklane is on it, with the
 * run link; the apply job edits the same comment into the outcome (statusComment.ts).
 *
 * It writes only for a fire the agent job would run: the event matches the chore, it is not
 * Tasklane's own, and the asker passes the actor gate (asked again here with this job's token), so an
 * outsider's comment does not make Tasklane announce work it will refuse. It never overwrites an
 * outcome: when the apply job of this same run already wrote the status (a fast fire), it leaves it.
 * Any failure here is a warning, never a failed fire: the outcome is the record that counts.
 */
import { checkActorGate } from './actorGate';
import { actionsRunUrl } from './cliEngine';
import { githubApiFromEnv } from './ciRun';
import type { GithubApi } from './githubApi';
import { readGithubEvent } from './eventFile';
import { statusMarker, upsertStatus } from './statusComment';
import { UsageError } from './environment';
import { eventItem, matchEvent, selfTriggered } from '../core/chores/githubEvent';
import { DEFAULT_ACTOR_GATE } from '../core/chores/githubTypes';
import type { ChoreDefinition } from '../core/chores/types';

interface Io {
  out(text: string): void;
  err(text: string): void;
  env: Readonly<Record<string, string | undefined>>;
}

/** Writes the started status when the fire is one; resolves with 0 (a problem is a warning). */
export async function startedStatus(input: { choreId: string; chores: readonly ChoreDefinition[]; io: Io }): Promise<number> {
  const { io } = input;
  const chore = input.chores.find((c) => c.id === input.choreId);
  if (!chore) throw new UsageError(`"chores status": no chore ${input.choreId} in .tasklane/chores.yaml.`);
  const repo = io.env.GITHUB_REPOSITORY;
  const eventFile = io.env.GITHUB_EVENT_PATH;
  if (chore.trigger.kind !== 'github' || !repo || !eventFile) return say(io, 'no repository event to report on');
  const event = readGithubEvent(eventFile, io.env.GITHUB_EVENT_NAME);
  const item = eventItem(event, repo);
  if (item.number === null || item.repo !== repo) return say(io, 'the event is about no issue or pull request of this repository');
  if (selfTriggered(event) || !matchEvent(chore.trigger.github, event, chore.id).fire) return say(io, 'the event is not a fire of this chore');
  const api = githubApiFromEnv(io.env, io.env.GITHUB_TOKEN, repo)!;
  const url = actionsRunUrl(io.env);
  const labelCommand = chore.trigger.github.labelCommand;
  if (labelCommand !== undefined) await removeLabelCommand(io, api, item.number, labelCommand);
  try {
    const gate = await checkActorGate(chore.actors ?? DEFAULT_ACTOR_GATE, event, api);
    if (!gate.allowed) return say(io, 'the actor gate refuses the fire (the apply job reports it)');
    const existing = (await api.comments(item.number)).find((c) => c.user?.type === 'Bot' && (c.body ?? '').includes(statusMarker(chore.id)));
    if (existing && url && (existing.body ?? '').includes(url)) return say(io, 'the outcome of this run is already written');
    const lines = ['- The run is in progress; this comment is edited in place with its outcome.'];
    io.out(`${await upsertStatus(api, item.number, { choreId: chore.id, title: 'Started', lines, ...(url ? { runUrl: url } : {}) })}\n`);
  } catch (error) {
    io.err(
      `::warning::the started status was not written (${error instanceof Error ? error.message : String(error)}); the apply job still writes the outcome.\n`,
    );
  }
  return 0;
}

/**
 * A label command is consumed by its fire, whoever applied it (a refused one too: the status says
 * why), so the label can be applied again and never reads as a request still pending. Removing it
 * here, at the start and beside the agent job, frees it even when the run fails or is cancelled.
 */
async function removeLabelCommand(io: Io, api: GithubApi, issue: number, label: string): Promise<void> {
  try {
    const removed = await api.removeLabel(issue, label);
    io.out(`${removed ? 'removed' : 'already gone:'} the label command "${label}" on #${issue}\n`);
  } catch (error) {
    io.err(
      `::warning::the label command "${label}" was not removed from #${issue} (${error instanceof Error ? error.message : String(error)}); remove it by hand to apply it again.\n`,
    );
  }
}

function say(io: Io, why: string): number {
  io.out(`no started status: ${why}\n`);
  return 0;
}
