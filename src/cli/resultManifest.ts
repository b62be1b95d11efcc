/**
 * `tasklane-result.json`: what one CI fire did and what it proposes, written by the read-only
 * agent job (`chores run --out DIR`) and read by the apply job (`chores apply --from DIR`). The
 * apply job trusts none of it: it validates every proposed output against the committed chore's
 * `outputs:` and reads the target from the event itself.
 *
 * How the model proposes outputs (a decision): through the chore's final `task_end` output, the
 * same JSON object `successWhen` judges. On CI the instruction names the declared outputs and the
 * shape `{ labels, comment, issues: [{title, body}], review, pullRequest: {title, body},
 * pushToPullRequest: {message} }`, so the
 * model finds it from its request alone; no extra action is needed and a run that proposes
 * nothing simply leaves the keys out.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import * as z from 'zod/v4';
import { fitText, MAX_BODY_CHARS, MAX_COMMIT_MESSAGE_CHARS, MAX_TITLE_CHARS } from './outputRules';

export const manifestFile = 'tasklane-result.json';
export const patchFile = 'tasklane.patch';

/** Most characters kept of one proposed text (a comment, an issue body, a review): GitHub's limit less room for the marker. */
export const maxProposedChars = MAX_BODY_CHARS;

const text = z.string().max(maxProposedChars);

/** What the run proposes to write; every kind is optional and judged by the apply job. */
export const proposedOutputsSchema = z.object({
  labels: z.array(z.string().max(100)).max(100).default([]),
  comment: text.nullable().default(null),
  issues: z
    .array(z.object({ title: z.string().max(256), body: text }))
    .max(100)
    .default([]),
  review: text.nullable().default(null),
  pullRequest: z
    .object({ title: z.string().max(256), body: text })
    .nullable()
    .default(null),
  /** A commit on the triggering pull request's branch, with this message (pushToPull.ts). */
  pushToPullRequest: z
    .object({ message: z.string().max(MAX_COMMIT_MESSAGE_CHARS) })
    .nullable()
    .default(null),
});
export type ProposedOutputs = z.output<typeof proposedOutputsSchema>;

export const manifestSchema = z.object({
  version: z.literal(1),
  choreId: z.string().regex(/^[a-z0-9][a-z0-9-]*$/),
  definitionHash: z.string().regex(/^[0-9a-f]{64}$/),
  /** A run status, or `skipped` when the fire never reached the model. */
  status: z.enum(['succeeded', 'failed', 'checks_failed', 'nothing_to_change', 'budget_exhausted', 'awaiting_review', 'cancelled', 'missed', 'skipped']),
  reason: z.string().nullable(),
  /**
   * Why a fire was skipped: the event does not match, the actor gate, Tasklane's own event, a budget
   * across fires, or a `/tasklane continue` refused (no paused run, or its store does not match: ciResume.ts).
   */
  skip: z.enum(['event', 'gate', 'self', 'budget', 'resume', 'loop']).nullable().default(null),
  usage: z.object({
    iterations: z.number().nonnegative(),
    inputTokens: z.number().nonnegative(),
    outputTokens: z.number().nonnegative(),
    costUsd: z.number().nonnegative(),
    costEstimated: z.boolean(),
  }),
  /** The successWhen verdict; null when the chore has none or the run never ended with task_end. */
  verdict: z.object({ expression: z.string(), met: z.boolean() }).nullable(),
  commands: z.object({ run: z.array(z.string()), refused: z.array(z.string()) }),
  tainted: z.boolean(),
  taintReasons: z.array(z.string()),
  item: z.object({ repo: z.string(), number: z.number().int().positive().nullable(), kind: z.enum(['issue', 'pull_request', 'none']) }).nullable(),
  event: z.object({ name: z.string(), action: z.string().nullable() }).nullable(),
  outputs: proposedOutputsSchema,
  /** Files of `tasklane.patch`, empty when the run edited nothing. */
  changedFiles: z.array(z.string()),
  /** A run that reached a pausable limit: its recorded state (ciPause.ts); null otherwise. */
  paused: z
    .object({
      limit: z.enum(['iterations', 'inputTokens', 'costUsd']),
      message: z.string(),
      /** The run's last steps (tool names and their outcome), oldest first. */
      steps: z.array(z.string()).max(20),
      /** What a maintainer can do now, said as it is. */
      resume: z.string(),
      /** The kept store's hash (parkedStore.ts), set when the run parked with its store in the artifact. */
      storeHash: z
        .string()
        .regex(/^[0-9a-f]{64}$/)
        .optional(),
    })
    .nullable()
    .default(null),
});
export type ResultManifest = z.output<typeof manifestSchema>;

/**
 * The proposed outputs out of the run's final JSON output. Text over GitHub's limits is cut and
 * says so, never dropped (outputRules.ts); a malformed item is left out on its own, not with its
 * kind (the agent job already sent a malformed task_end back to the model).
 */
export function proposedOutputs(output: Record<string, unknown> | undefined): ProposedOutputs {
  const o = output ?? {};
  const str = (v: unknown): v is string => typeof v === 'string';
  const body = (v: unknown) => (str(v) ? fitText(v, maxProposedChars) : null);
  const item = (v: unknown) => {
    const x = (v ?? {}) as Record<string, unknown>;
    return str(x.title) && str(x.body) ? { title: fitText(x.title, MAX_TITLE_CHARS), body: fitText(x.body, maxProposedChars) } : null;
  };
  const list = (v: unknown) => (Array.isArray(v) ? v : []);
  const commit = (v: unknown) => {
    const message = ((v ?? {}) as Record<string, unknown>).message;
    return str(message) ? { message: fitText(message, MAX_COMMIT_MESSAGE_CHARS) } : null;
  };
  return {
    labels: list(o.labels)
      .filter((l): l is string => str(l) && l.length <= 100)
      .slice(0, 100),
    comment: body(o.comment),
    issues: list(o.issues)
      .map(item)
      .filter((i): i is { title: string; body: string } => i !== null)
      .slice(0, 100),
    review: body(o.review),
    pullRequest: item(o.pullRequest),
    pushToPullRequest: commit(o.pushToPullRequest),
  };
}

/** Reads and validates the manifest; throws with what is wrong (the caller exits 2). */
export function readManifest(dir: string): { manifest: ResultManifest; patch: string | undefined } {
  let raw: unknown;
  try {
    raw = JSON.parse(fs.readFileSync(path.join(dir, manifestFile), 'utf8'));
  } catch (error) {
    throw new Error(`${manifestFile} in ${dir} could not be read (${error instanceof Error ? error.message.split('\n')[0] : String(error)})`, { cause: error });
  }
  const parsed = manifestSchema.safeParse(raw);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    throw new Error(`${manifestFile} is not a Tasklane result: ${issue.path.join('.') || 'the file'}: ${issue.message}`);
  }
  const patchPath = path.join(dir, patchFile);
  const patch = fs.existsSync(patchPath) ? fs.readFileSync(patchPath, 'utf8') : undefined;
  return { manifest: parsed.data, patch };
}
