/**
 * The chore model (docs/DESIGN.md §7): what a loaded, validated chore looks like to the scheduler, the
 * run policy and the escalation channels. The YAML shape users write is in choreSchema.ts; this is
 * the normalised form, with every default filled in and every limit clamped.
 */

import type { ActorGate, ChoreOutputs, GithubTrigger } from './githubTypes';

/** When a chore fires. Exactly one kind per chore. */
export type ChoreTrigger =
  | {
      kind: 'cron';
      /** A croner pattern (5 or 6 fields). */
      cron: string;
      /** IANA zone; undefined means the machine's zone. */
      timezone?: string;
    }
  | {
      kind: 'files';
      /** Workspace-relative globs the host watches. */
      globs: string[];
      /** Quiet time after the last event before the chore fires; a save storm is one run. */
      debounceMs: number;
    }
  | {
      kind: 'task';
      /** VS Code task name, compared exactly. */
      name: string;
      /** JSONata condition over `{ name, exitCode }`; undefined fires on every end of the task. */
      when?: string;
    }
  | {
      kind: 'diagnostics';
      /** Workspace-relative globs of the files watched for new problems (default every file). */
      globs: string[];
      /** `error`: new errors; `warning`: new warnings or errors. */
      severity: 'error' | 'warning';
      debounceMs: number;
    }
  | {
      kind: 'git';
      /** What is watched; only `head` (HEAD moved: commit, checkout, pull) for now. */
      watch: 'head';
      debounceMs: number;
    }
  | {
      /** A repository event on GitHub Actions: runs on CI only, never in VS Code. */
      kind: 'github';
      github: GithubTrigger;
    };

/** The loop policy: every run stops the moment one of these trips (status `budget_exhausted`). */
export interface ChoreBudget {
  /** Model calls per run. Default 10, cap 100. */
  maxIterations: number;
  /** Wall-clock seconds per run. Default 600, cap 3600. */
  maxSeconds: number;
  /** Input tokens per run, cache reads and writes included. Default 1,000,000, cap 5,000,000. */
  maxInputTokens: number;
  /** Model cost per run in USD. Default 1, cap 50. */
  maxCostUsd: number;
}

export type FailurePolicy = 'retry' | 'escalate' | 'silent';
export type ConcurrencyPolicy = 'skip' | 'queue' | 'replace';
export type DriftPolicy = 'latest' | 'catchup' | 'skip';

/**
 * Where an escalation goes. Credentials are never in the YAML: they are names of secrets the host
 * keeps in SecretStorage, resolved at send time through a {@link SecretPort}.
 */
export interface EscalationChannels {
  /** Slack incoming webhook; its URL carries a token, so only `urlSecret` is accepted. */
  slack?: { urlSecret: string };
  /** Generic JSON webhook: `url` for one that carries no credentials, else `urlSecret`. */
  webhook?: { url?: string; urlSecret?: string };
  /** Email over SMTP; the secret holds an SMTP URL such as `smtps://user:pass@smtp.example.com:465`. */
  email?: { to: string[]; smtpSecret: string; from?: string };
}

/**
 * One server a chore declares. Without `command` it is the server of that name in `.vscode/mcp.json`
 * (or the person's `tasklane.mcp.servers`); with one, the chore defines it (a stdio server).
 */
export interface ChoreMcpServer {
  /** The exact tools the chore may call, sorted; nothing else of the server (read-only unless a write tool is listed). */
  tools: string[];
  /** Names of secrets this server gets, as `TASKLANE_SECRET_<NAME>` in its environment (no other server sees them). */
  secrets?: string[];
  /** A server defined in the chore: the program, its arguments and environment (never a secret's value). */
  command?: string;
  args?: string[];
  env?: Record<string, string>;
}

/** A chore as the rest of the extension sees it once `.tasklane/chores.yaml` has been validated. */
export interface ChoreDefinition {
  /** Unique, `[a-z0-9-]`; also the stem of every fire's dedup key. */
  id: string;
  name: string;
  trigger: ChoreTrigger;
  /** The instruction the chore's task starts with. */
  prompt: string;
  actionSets: string[];
  skills: string[];
  /**
   * The exact command lines the chore may run without asking (chores.yaml `commands:`), each
   * checked by approval/commands/commandLine.ts. They are part of what Enable shows and of the consent hash;
   * absent when none is declared. Any other command asks in VS Code and is refused headless.
   */
  commands?: string[];
  /**
   * The checks that judge a run that changed files (chores.yaml `verify:`): exact command lines,
   * same grammar and sealed runner as `commands:`, run in order when the task calls task_end
   * (core/checks/checkRun.ts). Part of what Enable shows and of the consent hash; absent when none.
   */
  verify?: string[];
  /** Rounds of checks before the run ends `checks_failed` (default 3, cap 10); present with `verify`. */
  verifyRounds?: number;
  /**
   * What the agent job runs before the chore on CI (chores.yaml `setup:`, e.g. `npm ci`): exact
   * command lines under the grammar of `commands:`, in order, each a step of the generated job
   * (core/chores/setupSchema.ts). Part of the consent hash; absent when none. Not run in VS Code.
   */
  setup?: string[];
  /**
   * Hosts the chore's commands and checks may reach on the command line (chores.yaml `network:`);
   * absent: no network for them. Listing any host gives them the whole network (networkSchema.ts).
   */
  network?: string[];
  /** `unsafe: true`: declared escape hatches (`npx`, `node -e`, `git push`…) are allowed. */
  unsafe?: true;
  /**
   * The MCP servers the chore may use and the exact tools of each (chores.yaml `mcp:`), by server
   * name; absent when none is declared. Part of what Enable shows and of the consent hash. A task
   * of the chore calls a declared tool without a card and is refused any other tool of that server.
   */
  mcp?: Record<string, ChoreMcpServer>;
  budget: ChoreBudget;
  /** JSONata over the run's final JSON output; undefined means "ended without error" is success. */
  successWhen?: string;
  /**
   * Output `status` values that end a run at once as failed with that answer (chores.yaml
   * `terminalStatuses`; default `needs_human`, turnEndings.ts): never re-prompted or retried.
   */
  terminalStatuses?: string[];
  onFailure: FailurePolicy;
  /** Retries after a failed run when `onFailure` is `retry` (default 2, cap 5). */
  maxRetries: number;
  /** Delay before a retry (default 60 s). */
  retryDelaySeconds: number;
  concurrency: ConcurrencyPolicy;
  /** How long a queued fire may wait for the active run to end before it is dropped (default 600 s, cap 3600). */
  queueMaxWaitSeconds: number;
  /** Only meaningful for cron chores. */
  drift: DriftPolicy;
  escalate?: EscalationChannels;
  /**
   * `false` when chores.yaml says `enabled: false`: the chore stays listed and its occurrences are
   * recorded as skipped, but it never runs. Absent (not `true`) otherwise, so existing consent
   * hashes are unchanged.
   */
  enabled?: false;
  /** Rolling caps of this chore (chores.yaml `budget.maxCostUsdPerDay` / `PerMonth`); absent when none is set. */
  spendLimits?: { maxCostUsdPerDay?: number; maxCostUsdPerMonth?: number };
  /** GitHub chores: who may fire it (absent: the default role list, no bots). */
  actors?: ActorGate;
  /** GitHub chores: what the apply job may write (absent: nothing but the check run). */
  outputs?: ChoreOutputs;
  /** GitHub chores (chores.yaml `budget.maxFiresPerItem`): fires per issue or pull request, counted from earlier check runs. */
  maxFiresPerItem?: number;
  /**
   * Any chore (chores.yaml `budget.maxFiresPerHour`): fires in the last hour. On CI
   * counted from the fire ledger (src/cli/fireBudget.ts); in VS Code and the CLI from the chore's
   * runs (runGates.ts `firesPerHourReached`).
   */
  maxFiresPerHour?: number;
}

/**
 * A problem in chores.yaml, positioned for a VS Code diagnostic. Lines and columns are 1-based, as
 * people read them and as the `yaml` package reports them; the host subtracts 1 for a vscode.Range.
 */
export interface ChoreDiagnostic {
  line: number;
  column: number;
  endLine: number;
  endColumn: number;
  /** Says what is wrong and what to write instead. */
  message: string;
  /** An error disables the chore it belongs to; a warning (a clamped limit) does not. */
  severity: 'error' | 'warning';
  /** The chore the problem belongs to, when it belongs to one that has an id. */
  choreId?: string;
}
