/**
 * The event file of a CI fire (`--event`, else `$GITHUB_EVENT_PATH`), read by the command line
 * itself: what it holds is untrusted data (core/chores/githubEvent.ts).
 */
import * as fs from 'node:fs';
import { eventFromPayload } from '../core/chores/githubEvent';
import type { GithubEvent } from '../core/chores/githubEvent';
import { UsageError } from './environment';

/** Reads the event file; a missing or malformed file is bad input (exit 2). */
export function readGithubEvent(file: string, eventName: string | undefined): GithubEvent {
  let payload: unknown;
  try {
    payload = JSON.parse(fs.readFileSync(file, 'utf8'));
  } catch (error) {
    throw new UsageError(`the event file ${file} could not be read as JSON (${error instanceof Error ? error.message.split('\n')[0] : String(error)}).`);
  }
  try {
    return eventFromPayload(payload, eventName);
  } catch (error) {
    throw new UsageError(`the event file ${file}: ${(error as Error).message}.`);
  }
}
