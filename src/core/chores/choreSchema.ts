import type { Cron } from 'croner';
import { newCron } from './cronLib';
import * as z from 'zod/v4';
import { isGrantableSet, unknownSetMessage } from '../actions/actionSets';
import { declaredCommandProblem } from '../approval/commands/commandLine';
import { checkRoundLimits } from '../checks/checkRun';
import { setupKeys, setupProblems } from './setupSchema';
import { verifyKeys, verifyProblems } from './verifySchema';
import { networkKeys, networkProblems, normalizeNetwork } from './networkSchema';
import { choreMcpProblems, choreMcpSchema, normalizeChoreMcp } from './choreMcp';
import { compileExpression } from './expressions';
import type { ChoreBudget, ChoreDefinition, EscalationChannels } from './types';
import { defaultDiagnosticsDebounceMs, defaultGitDebounceMs } from './eventTriggers';
import { actorsSchema, ciOnlyProblems, githubTriggerSchema, normalizeActors, normalizeGithubTrigger, normalizeOutputs, outputsSchema } from './githubSchema';

/**
 * The YAML shape of one chore (docs/DESIGN.md §7), validated with zod; strict objects make a typo in a key
 * (`maxIteration`) an error, not an ignored setting. network:, setup:, verify: have files of their own.
 */

/** Defaults and hard caps of the loop policy; values above a cap are clamped with a warning. */
export const budgetLimits: Record<keyof ChoreBudget, { default: number; cap: number; integer: boolean }> = {
  maxIterations: { default: 10, cap: 100, integer: true },
  maxSeconds: { default: 600, cap: 3600, integer: true },
  maxInputTokens: { default: 1_000_000, cap: 5_000_000, integer: true },
  maxCostUsd: { default: 1, cap: 50, integer: false },
};

export const retryLimits = { maxRetriesDefault: 2, maxRetriesCap: 5, retryDelaySecondsDefault: 60 };
export const queueLimits = { maxWaitSecondsDefault: 600, maxWaitSecondsCap: 3600 };
export const defaultDebounceMs = 1500;

const idPattern = /^[a-z0-9][a-z0-9-]*$/;

const nonEmpty = (what: string) => z.string({ error: `${what} must be a string` }).refine((s) => s.trim().length > 0, { error: `${what} must not be empty` });
const positive = (what: string) => z.number({ error: `${what} must be a number` }).positive({ error: `${what} must be greater than 0` });

/** One string or a list of them, as people write globs and addresses by hand. */
const oneOrMany = (what: string) => z.union([nonEmpty(what), z.array(nonEmpty(what)).min(1, { error: `${what} needs at least one entry` })]);

const triggerSchema = z
  .strictObject({
    cron: nonEmpty('trigger.cron').optional(),
    timezone: nonEmpty('trigger.timezone').optional(),
    files: oneOrMany('trigger.files').optional(),
    debounceMs: z
      .number()
      .int()
      .min(100, { error: 'trigger.debounceMs must be at least 100' })
      .max(60_000, { error: 'trigger.debounceMs must be at most 60000' })
      .optional(),
    task: z
      .strictObject({
        name: nonEmpty('trigger.task.name'),
        when: nonEmpty('trigger.task.when').optional(),
      })
      .optional(),
    diagnostics: z
      .strictObject({
        files: oneOrMany('trigger.diagnostics.files').optional(),
        severity: z.enum(['error', 'warning'], { error: 'trigger.diagnostics.severity must be error or warning' }).optional(),
      })
      .optional(),
    git: z.literal('head', { error: 'trigger.git must be head (HEAD moved: commit, checkout, pull)' }).optional(),
    github: githubTriggerSchema.optional(),
  })
  .superRefine((t, ctx) => {
    const kinds = (['cron', 'files', 'task', 'diagnostics', 'git', 'github'] as const).filter((k) => t[k] !== undefined);
    if (kinds.length !== 1) {
      ctx.addIssue({
        code: 'custom',
        message:
          kinds.length === 0
            ? 'trigger needs exactly one of cron, files, task, diagnostics, git or github, e.g. cron: "0 2 * * *"'
            : `trigger has ${kinds.join(' and ')}; keep exactly one (make a second chore for the other)`,
      });
      return;
    }
    if (t.timezone !== undefined && t.cron === undefined)
      ctx.addIssue({ code: 'custom', path: ['timezone'], message: 'timezone only applies to a cron trigger; remove it' });
    if (t.debounceMs !== undefined && t.files === undefined && t.diagnostics === undefined && t.git === undefined)
      ctx.addIssue({ code: 'custom', path: ['debounceMs'], message: 'debounceMs only applies to a files, diagnostics or git trigger; remove it' });
    if (t.cron !== undefined) {
      const problem = cronProblem(t.cron);
      if (problem) ctx.addIssue({ code: 'custom', path: ['cron'], message: problem });
    }
    if (t.timezone !== undefined && !isTimezone(t.timezone)) {
      ctx.addIssue({ code: 'custom', path: ['timezone'], message: `unknown timezone "${t.timezone}"; use an IANA name such as Europe/Paris or UTC` });
    }
    if (t.github?.cron !== undefined) {
      const problem = cronProblem(t.github.cron);
      if (problem) ctx.addIssue({ code: 'custom', path: ['github', 'cron'], message: problem.replace('trigger.cron', 'trigger.github.cron') });
    }
    if (t.github?.timezone !== undefined && !isTimezone(t.github.timezone))
      ctx.addIssue({
        code: 'custom',
        path: ['github', 'timezone'],
        message: `unknown timezone "${t.github.timezone}"; use an IANA name such as Europe/Paris or UTC`,
      });
    if (t.task?.when !== undefined) {
      const problem = jsonataProblem(t.task.when);
      if (problem)
        ctx.addIssue({ code: 'custom', path: ['task', 'when'], message: `trigger.task.when is not a valid expression over { name, exitCode }: ${problem}` });
    }
  });

const budgetSchema = z.strictObject({
  maxIterations: positive('budget.maxIterations').int({ error: 'budget.maxIterations must be a whole number' }).optional(),
  maxSeconds: positive('budget.maxSeconds').optional(),
  maxInputTokens: positive('budget.maxInputTokens').int({ error: 'budget.maxInputTokens must be a whole number' }).optional(),
  maxCostUsd: positive('budget.maxCostUsd').optional(),
  maxCostUsdPerDay: positive('budget.maxCostUsdPerDay').optional(),
  maxCostUsdPerMonth: positive('budget.maxCostUsdPerMonth').optional(),
  maxFiresPerItem: positive('budget.maxFiresPerItem').int({ error: 'budget.maxFiresPerItem must be a whole number' }).optional(),
  maxFiresPerHour: positive('budget.maxFiresPerHour').int({ error: 'budget.maxFiresPerHour must be a whole number' }).optional(),
});

const escalateSchema = z
  .strictObject({
    slack: z.strictObject({ urlSecret: nonEmpty('escalate.slack.urlSecret').optional(), url: z.string().optional() }).optional(),
    webhook: z.strictObject({ url: nonEmpty('escalate.webhook.url').optional(), urlSecret: nonEmpty('escalate.webhook.urlSecret').optional() }).optional(),
    email: z
      .strictObject({ to: oneOrMany('escalate.email.to'), smtpSecret: nonEmpty('escalate.email.smtpSecret'), from: nonEmpty('escalate.email.from').optional() })
      .optional(),
  })
  .superRefine((e, ctx) => {
    if (!e.slack && !e.webhook && !e.email) ctx.addIssue({ code: 'custom', message: 'escalate needs at least one channel: slack, webhook or email' });
    if (e.slack) {
      if (e.slack.url !== undefined) {
        ctx.addIssue({
          code: 'custom',
          path: ['slack', 'url'],
          message: 'a Slack webhook URL carries a token: store it as a secret and write urlSecret: <secret name> instead of url',
        });
      } else if (e.slack.urlSecret === undefined) {
        ctx.addIssue({ code: 'custom', path: ['slack'], message: 'escalate.slack needs urlSecret: <name of the secret holding the webhook URL>' });
      }
    }
    if (e.webhook) {
      if ((e.webhook.url === undefined) === (e.webhook.urlSecret === undefined)) {
        ctx.addIssue({
          code: 'custom',
          path: ['webhook'],
          message: 'escalate.webhook needs exactly one of url (no credentials in it) or urlSecret (a secret holding the URL)',
        });
      } else if (e.webhook.url !== undefined && !/^https?:\/\//i.test(e.webhook.url)) {
        ctx.addIssue({ code: 'custom', path: ['webhook', 'url'], message: 'escalate.webhook.url must start with http:// or https://' });
      }
    }
    if (e.email) {
      const to = Array.isArray(e.email.to) ? e.email.to : [e.email.to];
      to.forEach((address, i) => {
        if (!/^[^\s@]+@[^\s@]+$/.test(address)) {
          ctx.addIssue({
            code: 'custom',
            path: Array.isArray(e.email?.to) ? ['email', 'to', i] : ['email', 'to'],
            message: `"${address}" is not an email address`,
          });
        }
      });
    }
  });

/** One entry of `chores:` as users write it. */
export const choreSpecSchema = z
  .strictObject({
    id: z.string({ error: 'id must be a string' }).regex(idPattern, { error: 'id must use only a-z, 0-9 and -, and start with a letter or digit' }),
    name: nonEmpty('name'),
    trigger: triggerSchema,
    prompt: nonEmpty('prompt'),
    actionSets: z.array(nonEmpty('actionSets entry').refine(isGrantableSet, { error: (issue) => unknownSetMessage(String(issue.input)) })).optional(),
    skills: z.array(nonEmpty('skills entry')).optional(),
    commands: z.array(nonEmpty('commands entry')).optional(),
    ...verifyKeys,
    ...setupKeys,
    ...networkKeys,
    unsafe: z.boolean({ error: 'unsafe must be true or false' }).optional(),
    mcp: choreMcpSchema.optional(),
    budget: budgetSchema.optional(),
    successWhen: nonEmpty('successWhen').optional(),
    terminalStatuses: z.array(nonEmpty('terminalStatuses entry')).optional(),
    onFailure: z.enum(['retry', 'escalate', 'silent'], { error: 'onFailure must be retry, escalate or silent' }).optional(),
    maxRetries: z.number().int({ error: 'maxRetries must be a whole number' }).min(0, { error: 'maxRetries must be 0 or more' }).optional(),
    retryDelaySeconds: z.number().min(0, { error: 'retryDelaySeconds must be 0 or more' }).optional(),
    concurrency: z.enum(['skip', 'queue', 'replace'], { error: 'concurrency must be skip, queue or replace' }).optional(),
    queueMaxWaitSeconds: positive('queueMaxWaitSeconds').optional(),
    drift: z.enum(['latest', 'catchup', 'skip'], { error: 'drift must be latest, catchup or skip' }).optional(),
    escalate: escalateSchema.optional(),
    enabled: z.boolean({ error: 'enabled must be true or false' }).optional(),
    actors: actorsSchema.optional(),
    outputs: outputsSchema.optional(),
  })
  .superRefine((c, ctx) => {
    for (const [index, line] of (c.commands ?? []).entries()) {
      const problem = declaredCommandProblem(line, c.unsafe === true);
      if (problem) ctx.addIssue({ code: 'custom', path: ['commands', index], message: `commands: "${line}" cannot be declared: ${problem}` });
    }
    for (const problem of [...ciOnlyProblems(c), ...verifyProblems(c), ...setupProblems(c), ...networkProblems(c)])
      ctx.addIssue({ code: 'custom', ...problem });
    for (const [server, declared] of Object.entries(c.mcp ?? {}))
      for (const problem of choreMcpProblems(server, declared))
        ctx.addIssue({ code: 'custom', path: ['mcp', server, ...problem.path], message: problem.message });
    if (c.successWhen !== undefined) {
      const problem = jsonataProblem(c.successWhen);
      if (problem) ctx.addIssue({ code: 'custom', path: ['successWhen'], message: `successWhen is not valid JSONata: ${problem}` });
    }
    if (c.drift !== undefined && c.trigger.cron === undefined) {
      ctx.addIssue({ code: 'custom', path: ['drift'], message: 'drift only applies to a cron trigger; remove it' });
    }
  });

/** The YAML shape of one chore, as the guided "new chore" flow and the templates build it. */
export type ChoreSpec = z.input<typeof choreSpecSchema>;

/** A value that was over its cap, for a warning diagnostic at `path` (relative to the chore). */
export interface ClampNotice {
  path: (string | number)[];
  message: string;
}

/** Fills defaults and clamps the loop policy at its caps. `spec` must have passed {@link choreSpecSchema}. */
export function normalizeChore(spec: z.output<typeof choreSpecSchema>): { definition: ChoreDefinition; clamped: ClampNotice[] } {
  const clamped: ClampNotice[] = [];
  const clamp = (path: (string | number)[], value: number | undefined, fallback: number, cap: number, unit: string): number => {
    if (value === undefined) return fallback;
    if (value > cap) {
      clamped.push({ path, message: `${path.join('.')} ${value} is above the cap of ${cap} ${unit}; using ${cap}` });
      return cap;
    }
    return value;
  };
  const budget = {} as ChoreBudget;
  for (const key of Object.keys(budgetLimits) as (keyof ChoreBudget)[]) {
    const limit = budgetLimits[key];
    budget[key] = clamp(['budget', key], spec.budget?.[key], limit.default, limit.cap, budgetUnit[key]);
  }
  const t = spec.trigger;
  const trigger: ChoreDefinition['trigger'] =
    t.cron !== undefined
      ? { kind: 'cron', cron: t.cron, ...(t.timezone !== undefined ? { timezone: t.timezone } : {}) }
      : t.files !== undefined
        ? { kind: 'files', globs: Array.isArray(t.files) ? t.files : [t.files], debounceMs: t.debounceMs ?? defaultDebounceMs }
        : t.diagnostics !== undefined
          ? {
              kind: 'diagnostics',
              globs: t.diagnostics.files === undefined ? ['**'] : Array.isArray(t.diagnostics.files) ? t.diagnostics.files : [t.diagnostics.files],
              severity: t.diagnostics.severity ?? 'error',
              debounceMs: t.debounceMs ?? defaultDiagnosticsDebounceMs,
            }
          : t.git !== undefined
            ? { kind: 'git', watch: 'head', debounceMs: t.debounceMs ?? defaultGitDebounceMs }
            : t.github !== undefined
              ? { kind: 'github', github: normalizeGithubTrigger(t.github) }
              : { kind: 'task', name: t.task!.name, ...(t.task!.when !== undefined ? { when: t.task!.when } : {}) };
  const escalate = spec.escalate ? normalizeEscalation(spec.escalate) : undefined;
  const definition: ChoreDefinition = {
    id: spec.id,
    name: spec.name,
    trigger,
    prompt: spec.prompt,
    // Declaring commands or MCP servers grants the sets that run them (a chore that lists `npm test` means it).
    actionSets: [
      ...new Set([
        ...(spec.actionSets ?? []),
        ...(spec.commands?.length ? ['commands'] : []),
        ...Object.keys(spec.mcp ?? {})
          .sort()
          .map((server) => `mcp:${server}`),
      ]),
    ],
    skills: spec.skills ?? [],
    // Present only when declared, so the consent hashes of chores without them are unchanged.
    ...(spec.commands?.length ? { commands: [...new Set(spec.commands.map((c) => c.trim()))] } : {}),
    ...(spec.verify?.length
      ? {
          verify: [...new Set(spec.verify.map((c) => c.trim()))],
          verifyRounds: clamp(['verifyRounds'], spec.verifyRounds, checkRoundLimits.default, checkRoundLimits.cap, 'rounds'),
        }
      : {}),
    ...(spec.setup?.length ? { setup: spec.setup.map((c) => c.trim()) } : {}), // a list: setup runs in the order written
    ...normalizeNetwork(spec),
    ...(spec.unsafe ? { unsafe: true as const } : {}),
    ...(spec.mcp && Object.keys(spec.mcp).length ? { mcp: normalizeChoreMcp(spec.mcp) } : {}),
    budget,
    ...(spec.successWhen !== undefined ? { successWhen: spec.successWhen } : {}),
    // Present only when declared, so the consent hashes of chores without it are unchanged.
    ...(spec.terminalStatuses?.length ? { terminalStatuses: [...new Set(spec.terminalStatuses.map((s) => s.trim().toLowerCase()))] } : {}),
    // With nowhere to escalate to, a failure can only be recorded.
    onFailure: spec.onFailure ?? (escalate ? 'escalate' : 'silent'),
    maxRetries: clamp(['maxRetries'], spec.maxRetries, retryLimits.maxRetriesDefault, retryLimits.maxRetriesCap, 'retries'),
    retryDelaySeconds: spec.retryDelaySeconds ?? retryLimits.retryDelaySecondsDefault,
    concurrency: spec.concurrency ?? 'skip',
    queueMaxWaitSeconds: clamp(['queueMaxWaitSeconds'], spec.queueMaxWaitSeconds, queueLimits.maxWaitSecondsDefault, queueLimits.maxWaitSecondsCap, 'seconds'),
    drift: spec.drift ?? 'latest',
    ...(escalate ? { escalate } : {}),
    ...(spec.enabled === false ? { enabled: false as const } : {}),
    ...(spec.budget?.maxCostUsdPerDay !== undefined || spec.budget?.maxCostUsdPerMonth !== undefined
      ? {
          spendLimits: {
            ...(spec.budget.maxCostUsdPerDay !== undefined ? { maxCostUsdPerDay: spec.budget.maxCostUsdPerDay } : {}),
            ...(spec.budget.maxCostUsdPerMonth !== undefined ? { maxCostUsdPerMonth: spec.budget.maxCostUsdPerMonth } : {}),
          },
        }
      : {}),
    // GitHub chores always carry their gate (spelling out the default does not change the hash).
    ...(t.github !== undefined ? { actors: normalizeActors(spec.actors) } : {}),
    ...(spec.outputs ? { outputs: normalizeOutputs(spec.outputs) } : {}),
    ...(spec.budget?.maxFiresPerItem !== undefined ? { maxFiresPerItem: spec.budget.maxFiresPerItem } : {}),
    ...(spec.budget?.maxFiresPerHour !== undefined ? { maxFiresPerHour: spec.budget.maxFiresPerHour } : {}),
  };
  return { definition, clamped };
}

const budgetUnit: Record<keyof ChoreBudget, string> = { maxIterations: 'iterations', maxSeconds: 'seconds', maxInputTokens: 'tokens', maxCostUsd: 'USD' };

/**
 * The person's default channel (the `tasklane.chores.escalate` setting), checked by the same rules
 * as a chore's `escalate:`: the channels, or what is wrong with them.
 */
export function escalationChannelsFrom(value: unknown): { channels: EscalationChannels } | { problem: string } {
  const parsed = escalateSchema.safeParse(value);
  if (!parsed.success) return { problem: parsed.error.issues.map((i) => i.message).join('; ') };
  return { channels: normalizeEscalation(parsed.data) };
}

function normalizeEscalation(e: z.output<typeof escalateSchema>): EscalationChannels {
  const out: EscalationChannels = {};
  if (e.slack?.urlSecret) out.slack = { urlSecret: e.slack.urlSecret };
  if (e.webhook) out.webhook = e.webhook.url !== undefined ? { url: e.webhook.url } : { urlSecret: e.webhook.urlSecret! };
  if (e.email)
    out.email = { to: Array.isArray(e.email.to) ? e.email.to : [e.email.to], smtpSecret: e.email.smtpSecret, ...(e.email.from ? { from: e.email.from } : {}) };
  return out;
}

/** The shortest gap allowed between two fires of a cron chore (issue #11: a per-second cron floods the store). */
export const minCronIntervalMs = 60_000;

/**
 * Why a cron pattern is unusable, or undefined when croner accepts it and it fires at most once a
 * minute. croner also reads 6- and 7-field patterns whose first field is the second: there the
 * second must be one fixed value (e.g. `0 * * * * *`), and the next fires are sampled as a
 * second check, so no spelling gets under one minute.
 */
export function cronProblem(pattern: string): string | undefined {
  let cron: Cron;
  try {
    cron = newCron(pattern, { paused: true });
  } catch (error) {
    return `trigger.cron "${pattern}" is not a valid cron pattern (${errorText(error)}); e.g. "0 2 * * *" is every day at 02:00`;
  }
  const tooOften = `trigger.cron "${pattern}" fires more than once a minute; the shortest interval is 1 minute: use 5 fields (minute hour day month weekday), e.g. "* * * * *" for every minute`;
  const fields = pattern.trim().split(/\s+/);
  if (!pattern.trim().startsWith('@') && fields.length >= 6 && !/^[0-5]?\d$/.test(fields[0])) return tooOften;
  const runs = cron.nextRuns(6);
  for (let i = 1; i < runs.length; i++) if (runs[i].getTime() - runs[i - 1].getTime() < minCronIntervalMs) return tooOften;
  return undefined;
}

export function isTimezone(zone: string): boolean {
  try {
    new Intl.DateTimeFormat('en-US', { timeZone: zone });
    return true;
  } catch {
    return false;
  }
}

/**
 * Why a JSONata expression cannot be used, or undefined when it can. The one validator: the
 * chores.yaml diagnostics, `tasklane chores validate` and the runner all go through
 * `compileExpression` (length cap, RE2-only regexes), so the three accept and refuse alike.
 */
export function jsonataProblem(expression: string): string | undefined {
  try {
    compileExpression(expression);
    return undefined;
  } catch (error) {
    const message = errorText(error);
    // compileExpression names the expression itself; the diagnostic already says which field it is.
    const prefix = `"${expression}" is not valid JSONata: `;
    return message.startsWith(prefix) ? message.slice(prefix.length) : message;
  }
}

function errorText(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
