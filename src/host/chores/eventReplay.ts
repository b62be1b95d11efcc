/**
 * Run now of a chore that runs on CI (a GitHub event trigger): it replays a recorded event
 * payload, given or picked by the person, read with a size bound and checked against the chore.
 */
import * as vscode from 'vscode';
import { replayContext } from '../../core/chores/githubFire';
import type { ChoreFireContext } from '../../core/chores/fireContext';
import type { ChoreDefinition } from '../../core/chores/types';

/** The fire context of replaying `eventFile` (or the file the person picks); undefined when they pick none. */
export async function replayedEvent(chore: ChoreDefinition, eventFile?: vscode.Uri): Promise<ChoreFireContext | undefined> {
  const file = eventFile ?? (await pickEventPayload(chore.name));
  if (!file) return undefined;
  const replay = replayContext(chore, await readEventPayload(file));
  if ('problem' in replay) throw new Error(`The chore "${chore.id}" does not run: ${replay.problem}.`);
  return replay.context;
}

/** Largest event payload Run now reads (GitHub's webhook payloads are capped at 25 MB; real ones are kilobytes). */
const MAX_EVENT_PAYLOAD_BYTES = 2_000_000;

/** Asks for a recorded event payload (a webhook delivery, or an Actions run's event.json). */
async function pickEventPayload(choreName: string): Promise<vscode.Uri | undefined> {
  const picked = await vscode.window.showOpenDialog({
    title: `Tasklane: replay which GitHub event for "${choreName}"?`,
    openLabel: 'Replay event',
    canSelectMany: false,
    filters: { 'GitHub event payload': ['json'] },
  });
  return picked?.[0];
}

async function readEventPayload(file: vscode.Uri): Promise<string> {
  const { size } = await vscode.workspace.fs.stat(file);
  if (size > MAX_EVENT_PAYLOAD_BYTES) throw new Error(`The event payload ${file.fsPath} is ${size} bytes; Run now replays at most ${MAX_EVENT_PAYLOAD_BYTES}.`);
  return new TextDecoder().decode(await vscode.workspace.fs.readFile(file));
}
