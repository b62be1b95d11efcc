/**
 * The chores part of the engine (createEngine.ts): the run log, the spend ledger, the scheduler
 * when the host keeps schedules, and the runner over them, with every secret a chore reads added
 * to the one redactor.
 */
import type { Ledger } from './actions/ledger';
import type { ChangeSetStatus } from './approval/changes/changeSet';
import type { ChangeSetStore } from './approval/changes/changeSetStore';
import type { CommandRunner } from './approval/commands/commandService';
import type { ChoreChecksPort } from './chores/runChecks';
import { ChoreRunner } from './chores/choreRunner';
import { ChoreScheduler } from './chores/choreScheduler';
import { ChoreRunLog, DbRunPersistence } from './chores/runLog';
import type { ChoreRunRecord } from './chores/runLog';
import { decodeRun } from './chores/runRows';
import type { Agent } from './engine/agent';
import type { Logger } from './ports';
import { DbSchedulePersistence } from './chores/schedulePersistence';
import type { DurableRowError } from './store/decodeRow';
import { ChoreSpendLedger, DbSpendPersistence } from './chores/spendLedger';
import type { ChoreAdapters, EngineAdapters } from './engineAdapters';

/** The chore runner and what it keeps. */
export interface EngineChores {
  runner: ChoreRunner;
  runLog: ChoreRunLog;
  spend: ChoreSpendLedger;
  /** Only when `chores.schedule` was asked for. */
  scheduler?: ChoreScheduler;
}

export function buildChores(
  adapters: EngineAdapters,
  options: ChoreAdapters,
  ledger: Ledger,
  redact: (text: string) => string,
  checks?: ChoreChecksPort,
): EngineChores {
  const { db, triggers, clock, logger, redactor } = adapters;
  const runLog = new ChoreRunLog(new DbRunPersistence(db, (message) => adapters.logger.error('CHORE', message)), clock);
  runLog.redact = redact;
  const reportRow = (error: DurableRowError) => logger.error('STORE', error.message);
  const spend = new ChoreSpendLedger(new DbSpendPersistence(db, reportRow), () => clock.now());
  const late: { runner?: ChoreRunner } = {};
  const scheduler = options.schedule
    ? new ChoreScheduler({
        triggers,
        clock,
        persistence: new DbSchedulePersistence(db, () => clock.now(), reportRow),
        logger,
        onDropped: async (id, dropped) => {
          await late.runner?.recordDropped(id, dropped);
        },
      })
    : undefined;
  const runner = new ChoreRunner({
    triggers,
    runLog,
    ...(scheduler ? { scheduler } : {}),
    clock,
    logger,
    // A secret a chore reads is redacted wherever the run is written down.
    secrets: {
      getSecret: async (name) => {
        const value = await options.secrets.getSecret(name);
        redactor.addSecret(value);
        return value;
      },
    },
    redact,
    ledger,
    canRun: adapters.trusted,
    spend,
    ...(options.workspaceLimits ? { workspaceLimits: options.workspaceLimits } : {}),
    ...(options.blocked ? { blocked: options.blocked } : {}),
    ...(options.workspaceName !== undefined ? { workspaceName: options.workspaceName } : {}),
    ...(options.reviewLinks ? { reviewLinks: options.reviewLinks } : {}),
    ...(options.runLink ? { runLink: options.runLink } : {}),
    ...(options.resumeLink ? { resumeLink: options.resumeLink } : {}),
    ...(options.defaultEscalation ? { defaultEscalation: options.defaultEscalation } : {}),
    ...(options.prepare ? { prepare: options.prepare } : {}),
    ...(checks ? { checks } : {}),
    ...(options.parkAtBudget ? { parkAtBudget: true } : {}),
  });
  late.runner = runner;
  return { runner, runLog, spend, ...(scheduler ? { scheduler } : {}) };
}

/** Change sets that changed (or will change) the workspace; rejected, stale and reverted ones did not. */
const CHANGED: ReadonlySet<ChangeSetStatus> = new Set(['pending', 'approved', 'applied', 'partially_applied']);

/**
 * What a chore's checks run on (chores/runChecks.ts): the host's command runner, the sealed one
 * its `commands:` use, and the task's change sets to tell whether it changed a file at all. A
 * pending set counts: a proposal awaiting review is a change the task made (the checks then see
 * the folder without it, which the docs say; headless every proposal is in the overlay).
 */
export function choreChecksPort(runner: CommandRunner, changeSets: Pick<ChangeSetStore, 'list'> | undefined): ChoreChecksPort {
  return {
    run: (command, options) => runner.runCommand(command, options),
    changedFiles: async (taskId) => (changeSets ? (await changeSets.list({ taskId })).some((set) => CHANGED.has(set.status)) : false),
  };
}

/**
 * How the run log finds a run that left the hot store: in the agent's archive (`History.archived`),
 * decoded like a hot row. A row that does not decode is reported and not found.
 */
export function archivedRun(agent: Pick<Agent, 'history'>, logger: Logger): (runId: string) => ChoreRunRecord | undefined {
  return (runId) => {
    const row = agent.history.archived('chore_run', runId);
    if (!row) return undefined;
    try {
      return decodeRun(row.data, runId);
    } catch (error) {
      logger.error('CHORE', `archived run ${runId} cannot be read: ${error instanceof Error ? error.message : String(error)}`);
      return undefined;
    }
  };
}
