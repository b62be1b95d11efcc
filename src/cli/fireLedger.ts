/**
 * The fire ledger: where every CI fire of a chore leaves its record (cost, item, time, whether it
 * was stopped) and where the next fire reads them all before any model call (fireBudget.ts counts).
 *
 * A record is a check run named `Tasklane ledger · <chore>` on the default branch's first commit,
 * with the record in its `external_id`. Why there and in that field:
 *  - the first commit is a commit every fire can name without being told (the fire's own commit
 *    moves with each push, and reading "the commits workflows ran on" has a window 25 newer commits
 *    push the earlier fires out of: ci-2026-12c s10b);
 *  - `external_id` is written only by the apply job's `CheckRuns.create` from numbers it holds (the
 *    manifest's cost, the event's item, its own clock): no text the model wrote reaches it, so a
 *    proposed label or comment shaped like a record is text and nothing more (security-2026-12c
 *    finding 3). The agent job's token can read check runs, never write them; only check runs the
 *    workflow's own app (`github-actions`) wrote count;
 *  - every page is read (GitHub's `Link: rel="next"`) and the count compared with the `total_count`
 *    GitHub gives: a ledger not read whole is a cap reached (fail closed), never a cap skipped.
 *
 * A history rewrite that changes the first commit starts a new ledger (the caps restart); GitHub
 * lists the check runs of at most 1000 check suites a commit, and a ledger that grows past what is
 * listed is not read whole, so it stops the chore rather than under-count it.
 */
import type { FireRecord } from './fireBudget';
import type { CheckRunSummary, GithubApi } from './githubApi';

/** The check name of a chore's ledger records (on the first commit, never on a pull request). */
export function ledgerCheckName(choreId: string): string {
  return `Tasklane ledger · ${choreId}`;
}

/** The app whose check runs are records: the workflow's own token writes as it. */
const LEDGER_APP = 'github-actions';

/** The `external_id` of a record: compact JSON of numbers, times and the item key. */
export function ledgerExternalId(record: FireRecord): string {
  return JSON.stringify({
    v: 1,
    item: record.item,
    cost: Math.round(Math.max(0, record.costUsd) * 1e6) / 1e6,
    at: record.at,
    ...(record.stopped ? { stopped: record.stopped } : {}),
    ...(record.paused ? { paused: [record.paused.run, record.paused.store] } : {}),
  });
}

/** The records among `runs`; a run another app wrote, or whose external_id is not a record, counts for nothing. */
export function ledgerRecords(runs: readonly CheckRunSummary[], choreId: string): FireRecord[] {
  const out: FireRecord[] = [];
  for (const run of runs) {
    if (run.name !== ledgerCheckName(choreId)) continue;
    if (run.app?.slug !== undefined && run.app?.slug !== null && run.app.slug !== LEDGER_APP) continue;
    try {
      const r = JSON.parse(run.external_id ?? '') as { v?: unknown; item?: unknown; cost?: unknown; at?: unknown; stopped?: unknown; paused?: unknown };
      if (r.v !== 1 || typeof r.cost !== 'number' || !Number.isFinite(r.cost) || typeof r.at !== 'string' || Number.isNaN(Date.parse(r.at))) continue;
      out.push({
        chore: choreId,
        item: typeof r.item === 'string' ? r.item : null,
        costUsd: Math.max(0, r.cost),
        at: r.at,
        ...(r.stopped === 'budget' || r.stopped === 'gate' || r.stopped === 'resume' || r.stopped === 'loop' ? { stopped: r.stopped } : {}),
        ...pausedOf(r.paused),
      });
    } catch {
      // not a record
    }
  }
  return out;
}

/** A record's paused run: `[run id, store hash]`, both in the shapes GitHub and parkedStore.ts give them. */
function pausedOf(value: unknown): { paused?: { run: string; store: string } } {
  if (!Array.isArray(value) || value.length !== 2) return {};
  const [run, store] = value as unknown[];
  if (typeof run !== 'string' || !/^\d+$/.test(run) || typeof store !== 'string' || !/^[0-9a-f]{64}$/.test(store)) return {};
  return { paused: { run, store } };
}

/** Every record of the chore, or an error when the ledger cannot be read whole (the caller stops the fire). */
export async function readLedger(api: GithubApi, choreId: string): Promise<FireRecord[]> {
  const anchor = await api.firstCommit();
  const { runs, total } = await api.checkRunsWhole(anchor, ledgerCheckName(choreId));
  const distinct = new Set(runs.map((r) => r.id)).size;
  if (distinct < total) throw new Error(`the fire ledger lists ${total} record(s) and ${distinct} could be read; the caps cannot be counted`);
  return ledgerRecords(runs, choreId);
}

/** Appends one record (the apply job, with `checks: write`); neutral, so it colours no commit. */
export async function writeLedger(api: GithubApi, record: FireRecord, detailsUrl?: string): Promise<void> {
  const anchor = await api.firstCommit();
  await api.createCheckRun({
    name: ledgerCheckName(record.chore),
    head_sha: anchor,
    conclusion: 'neutral',
    title: record.stopped ? `Fire stopped (${record.stopped})` : `Fire: $${record.costUsd.toFixed(4)}`,
    summary: `A fire of chore ${record.chore}${record.item ? ` for ${record.item}` : ''} at ${record.at}. The next fire counts this record against the chore's budgets across fires.`,
    external_id: ledgerExternalId(record),
    ...(detailsUrl ? { details_url: detailsUrl } : {}),
  });
}
