/**
 * What a CI fire's proposed outputs must be, checked where it can still be fixed (issue 38 item 4;
 * review ci-2026-12c §5 #4: a 70,000-character comment vanished and the check said success).
 *
 *  - In the agent job, before `task_end` is accepted ({@link outputProblems}, a task hook): a kind
 *    the chore does not declare, a label off the allowlist, more items than `max`, a wrong shape
 *    go back to the model as the reason its task_end was refused, as gh-aw returns tool errors, so
 *    it can fix them within its budget. Nothing is dropped in silence.
 *  - Length is never a reason to drop: text over GitHub's limits is cut and says so
 *    ({@link fitText}), in the manifest the agent writes and again in the apply job.
 *  - What is written is neutralised in the apply job ({@link neutralise}): @-mentions of anyone but
 *    the person who asked and the item's author become code (no notification, no team ping), links
 *    off GitHub become visible, unclickable text, images off GitHub are removed (tracking pixels),
 *    and at most {@link MAX_LINKS} links and {@link MAX_IMAGES} images stay clickable.
 */
import type { ChoreOutputs } from '../core/chores/githubTypes';
import type { TaskHooks } from '../core/engine/taskHooks';

/** Characters of model text kept in a body (GitHub allows 65,536; the rest is Tasklane's marker and notes). */
export const MAX_BODY_CHARS = 60_000;
/** GitHub's limits for an issue or pull request title and a label name. */
export const MAX_TITLE_CHARS = 256;
export const MAX_LABEL_CHARS = 50;
/** A commit message on a pull request's branch: a subject and a short body. */
export const MAX_COMMIT_MESSAGE_CHARS = 1_000;
export const MAX_LINKS = 50;
export const MAX_IMAGES = 5;

type Obj = Record<string, unknown>;
const isObj = (v: unknown): v is Obj => v !== null && typeof v === 'object' && !Array.isArray(v);
const isText = (v: unknown): v is string => typeof v === 'string';

/** Text cut to `max` characters with a note saying how much was cut; unchanged when it fits. */
export function fitText(text: string, max: number): string {
  if (text.length <= max) return text;
  const note = `\n\n[Truncated by Tasklane: ${text.length - max} more characters were over GitHub's limit.]`;
  return `${text.slice(0, Math.max(0, max - note.length))}${note}`;
}

/** What is wrong with the proposed outputs of a task_end `output`, against the chore's `outputs:` (empty: nothing). */
export function outputProblems(output: Obj | undefined, declared: ChoreOutputs): string[] {
  const o = output ?? {};
  const problems: string[] = [];
  const undeclared = (key: string, kind: string) => {
    if (o[key] !== undefined && o[key] !== null && !declared[kind as keyof ChoreOutputs])
      problems.push(`"${key}": this chore may not write ${kind === 'issue' ? 'issues' : key}; leave the key out`);
  };
  for (const [key, kind] of [
    ['labels', 'labels'],
    ['comment', 'comment'],
    ['issues', 'issue'],
    ['review', 'review'],
    ['pullRequest', 'pullRequest'],
    ['pushToPullRequest', 'pushToPullRequest'],
  ] as const)
    undeclared(key, kind);
  if (declared.labels && o.labels !== undefined) {
    if (!Array.isArray(o.labels) || !o.labels.every(isText)) problems.push('"labels" must be a list of label names');
    else {
      const off = o.labels.filter((l) => !declared.labels!.allowed.includes(l));
      if (off.length)
        problems.push(`"labels": ${off.map((l) => JSON.stringify(l.slice(0, 60))).join(', ')} not in the allowed labels ${declared.labels.allowed.join(', ')}`);
      if (new Set(o.labels).size > declared.labels.max) problems.push(`"labels": at most ${declared.labels.max}`);
    }
  }
  if (declared.comment && o.comment !== undefined && o.comment !== null && !isText(o.comment)) problems.push('"comment" must be one Markdown string');
  if (declared.review && o.review !== undefined && o.review !== null && !isText(o.review)) problems.push('"review" must be one Markdown string');
  if (declared.issue && o.issues !== undefined) {
    if (!Array.isArray(o.issues) || !o.issues.every((i) => isObj(i) && isText(i.title) && i.title.trim() && isText(i.body)))
      problems.push('"issues" must be a list of {"title": "…", "body": "…"} with a non-empty title');
    else if (o.issues.length > declared.issue.max) problems.push(`"issues": at most ${declared.issue.max}`);
  }
  if (declared.pullRequest && o.pullRequest !== undefined && o.pullRequest !== null) {
    const pr = o.pullRequest;
    if (!isObj(pr) || !isText(pr.title) || !pr.title.trim() || !isText(pr.body))
      problems.push('"pullRequest" must be {"title": "…", "body": "…"} with a non-empty title');
  }
  if (declared.pushToPullRequest && o.pushToPullRequest !== undefined && o.pushToPullRequest !== null) {
    const push = o.pushToPullRequest;
    if (!isObj(push) || !isText(push.message) || !push.message.trim())
      problems.push('"pushToPullRequest" must be {"message": "…"}: the commit message, a non-empty subject line first');
  }
  return problems;
}

/**
 * The task hook that refuses a task_end whose output breaks {@link outputProblems}: the model is
 * told what to fix and the task goes on (bounded by the chore's iterations and budget).
 */
export function outputCheckHook(declared: ChoreOutputs): TaskHooks {
  return {
    beforeTaskEnd: async (_task, result) => {
      if (result.status !== 'completed') return undefined;
      const problems = outputProblems(result.output, declared);
      if (problems.length === 0) return undefined;
      return `Your task_end was not accepted: its output breaks the chore's outputs rules, and nothing would be written to GitHub. Fix these and call task_end again: ${problems.join('; ')}.`;
    },
  };
}

/** Who may be mentioned (GitHub logins, compared without case). */
export interface MentionPolicy {
  allowed: readonly string[];
}

const GITHUB_HOSTS = /^(?:[a-z0-9-]+\.)*(?:github\.com|githubusercontent\.com)$/i;

function hostOf(url: string): string | undefined {
  try {
    return new URL(url).hostname;
  } catch {
    return undefined;
  }
}

/** Proposed Markdown made safe to post: mentions, links and images as the header says. */
export function neutralise(text: string, policy: MentionPolicy): string {
  const allowed = new Set(policy.allowed.map((a) => a.toLowerCase()));
  let links = 0;
  let images = 0;
  let out = text
    // Images first: off GitHub (a tracking pixel) removed; past the cap, not shown.
    .replace(/!\[([^\]]*)\]\(\s*<?([^)\s>]+)>?[^)]*\)/g, (_m, alt: string, url: string) => {
      const host = hostOf(url) ?? 'an unreadable address';
      if (!GITHUB_HOSTS.test(host)) return `[image from ${host} removed]`;
      return ++images > MAX_IMAGES ? `[image not shown: more than ${MAX_IMAGES}]` : `![${alt}](${url})`;
    })
    .replace(/<img\b[^>]*>/gi, '[image removed]')
    // Markdown links: off GitHub, or past the cap, the address is shown as code, not clickable.
    .replace(/\[([^\]]*)\]\(\s*<?([^)\s>]+)>?[^)]*\)/g, (m, label: string, url: string) => {
      const host = hostOf(url);
      if (host && GITHUB_HOSTS.test(host) && ++links <= MAX_LINKS) return m;
      return `${label} (\`${url.replace(/`/g, '')}\`)`;
    });
  // Bare addresses GitHub would link (outside code already made above).
  out = out.replace(/(^|[\s(])(https?:\/\/[^\s)<>`]+)/g, (m, before: string, url: string) => {
    const host = hostOf(url);
    if (host && GITHUB_HOSTS.test(host) && ++links <= MAX_LINKS) return m;
    return `${before}\`${url}\``;
  });
  // @user, @org/team: kept only for the people allowed; the rest cannot notify anyone.
  return out.replace(/(^|[^\w`@/])@([A-Za-z0-9][A-Za-z0-9-]{0,38}(?:\/[A-Za-z0-9][\w.-]*)?)/g, (m, before: string, name: string) =>
    allowed.has(name.toLowerCase()) ? m : `${before}\`@${name}\``,
  );
}
