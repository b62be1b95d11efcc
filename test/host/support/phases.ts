import * as fs from 'node:fs';

/**
 * Extension-host restarts inside one host-tier run (see test/fixtures/hostRunnerExtension): phase
 * 0 is the first extension host; after `restartExtensionHostAfterRun`, the runner restarts the
 * extension host once mocha ends and runs the suites matching `grep` again as phase 1.
 */
export function hostPhase(): number {
  return Number(process.env.TASKLANE_HOST_PHASE ?? '0');
}

/** What phase 0 handed to phase 1 (task ids and the like), or undefined in phase 0. */
export function phaseState<T>(): T | undefined {
  const raw = process.env.TASKLANE_HOST_PHASE_STATE;
  return raw && raw !== 'null' ? (JSON.parse(raw) as T) : undefined;
}

/** Asks the runner to restart the extension host after this run and then run `grep` with `state`. */
export function restartExtensionHostAfterRun(grep: string, state: unknown): void {
  const file = process.env.TASKLANE_HOST_RESTART_FILE;
  if (!file) throw new Error('the host runner set no TASKLANE_HOST_RESTART_FILE: is this the phased runner?');
  fs.writeFileSync(file, JSON.stringify({ grep, state }));
}
