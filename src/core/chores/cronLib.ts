import type * as Croner from 'croner';
import type { Cron, CronOptions } from 'croner';

let croner: typeof Croner | undefined;

/**
 * A croner schedule, with croner loaded on the first one. Only chores have schedules, so the
 * extension host's bundle leaves croner out: esbuild.js turns this `require` into one of
 * `dist/lazy/croner.js` (LAZY_REQUIRE), loaded synchronously because validating chores.yaml is.
 */
export function newCron(pattern: string, options: CronOptions): Cron {
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  croner ??= require('croner') as typeof Croner;
  return new croner.Cron(pattern, options);
}
