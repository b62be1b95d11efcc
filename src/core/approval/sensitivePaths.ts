import type { ResolvedWorkspacePath } from './pathGuard';

/**
 * Which workspace files always need a person's approval to change (docs/DESIGN.md §6): files that can
 * execute code or change the agent's own powers. Matching is on a normalised, case-folded form of
 * the workspace-relative path, so `.VSCode\tasks.json`, `./.git//config` or `package.json.` (which
 * Windows writes as package.json) cannot slip past.
 */

/** The outcome of the edit policy for one path. */
export type EditClassification =
  | { decision: 'auto' }
  | { decision: 'ask'; reason: string };

/** Settings that shape the edit policy (`tasklane.approval.autoApproveEdits`). */
export interface EditPolicyOptions {
  /** Apply ordinary workspace edits without asking. Sensitive paths still ask. */
  autoApproveEdits: boolean;
}

/** One sensitive pattern: a predicate over the normalised path's segments, and the reason shown to the user. */
interface SensitiveRule {
  pattern: string;
  reason: string;
  matches(segments: string[]): boolean;
}

const last = (segments: string[]): string => segments[segments.length - 1] ?? '';

/**
 * Patterns match at any depth: a nested package.json has its own scripts, a nested .vscode folder
 * takes effect when that folder is opened, and asking too often costs a click, not a breach.
 */
const SENSITIVE_RULES: readonly SensitiveRule[] = [
  {
    pattern: '.vscode/*.json',
    reason: 'VS Code settings, tasks and launch configurations can run code',
    matches: (s) => s.length >= 2 && s[s.length - 2] === '.vscode' && last(s).endsWith('.json'),
  },
  {
    pattern: '.git/**',
    reason: 'Git internals (hooks, config) can run code',
    matches: (s) => s.includes('.git'),
  },
  {
    pattern: '.github/workflows/**',
    reason: 'CI workflows run code with the repository secrets',
    matches: (s) => s.some((segment, i) => segment === '.github' && s[i + 1] === 'workflows'),
  },
  {
    pattern: '.env*',
    reason: 'environment files hold secrets and can change how tools run',
    matches: (s) => last(s).startsWith('.env'),
  },
  {
    pattern: '*.code-workspace',
    reason: 'workspace files carry settings and tasks that can run code',
    matches: (s) => last(s).endsWith('.code-workspace'),
  },
  {
    pattern: 'package.json',
    reason: 'package.json scripts run code on install, build and test',
    matches: (s) => last(s) === 'package.json',
  },
  {
    pattern: '.tasklane/**',
    reason: "files under .tasklane define the agent's own chores and powers",
    matches: (s) => s.includes('.tasklane'),
  },
];

/** The patterns that always ask, for display in settings and docs. */
export const SENSITIVE_PATTERNS: readonly string[] = SENSITIVE_RULES.map((rule) => rule.pattern);

/**
 * Normalises a workspace-relative path for matching: `/` separators, no `.` or empty segments,
 * `..` applied, trailing dots and spaces of each segment dropped (Windows ignores them), Unicode
 * NFC, lower case. Returns undefined when `..` climbs above the root.
 */
export function normaliseForMatching(relativePath: string): string[] | undefined {
  const out: string[] = [];
  for (const raw of relativePath.normalize('NFC').replace(/\\/g, '/').split('/')) {
    // Windows drops trailing dots and spaces, so a segment of only dots and spaces names nothing new.
    const segment = raw === '..' ? raw : raw.replace(/[. ]+$/, '');
    if (segment === '') continue;
    if (segment === '..') {
      if (out.length === 0) return undefined;
      out.pop();
      continue;
    }
    out.push(segment.toLowerCase());
  }
  return out;
}

/**
 * Why a path is sensitive, or undefined when it is not. Also tried with each segment cut at the
 * first `:`, since on Windows `package.json::$DATA` is package.json itself (an NTFS stream name).
 */
export function sensitiveReason(relativePath: string): string | undefined {
  const segments = normaliseForMatching(relativePath);
  if (segments === undefined) return 'the path climbs above the workspace root';
  const withoutStreams = segments.map((s) => s.split(':')[0].replace(/[. ]+$/, ''));
  for (const candidate of [segments, withoutStreams]) {
    const rule = SENSITIVE_RULES.find((r) => r.matches(candidate));
    if (rule !== undefined) return `${rule.reason} (${rule.pattern})`;
  }
  return undefined;
}

/**
 * The edit policy for one workspace-relative path (run it through resolveWorkspacePath first;
 * paths outside the workspace are refused there, not here). Pass every path an edit touches:
 * both sides of a rename, and both the requested and the physical path of a symlinked file.
 */
export function classifyEdit(relativePath: string, options: EditPolicyOptions): EditClassification {
  const sensitive = sensitiveReason(relativePath);
  if (sensitive !== undefined) return { decision: 'ask', reason: `${relativePath} always needs approval: ${sensitive}` };
  if (!options.autoApproveEdits) return { decision: 'ask', reason: 'edits need approval (tasklane.approval.autoApproveEdits is off)' };
  return { decision: 'auto' };
}

/** Reads inside the workspace are automatic (the guard has already refused anything outside). */
export function classifyRead(_relativePath: string): EditClassification {
  return { decision: 'auto' };
}

/** The strictest classification over several paths: asks if any of them asks, with every reason. */
export function classifyEdits(relativePaths: readonly string[], options: EditPolicyOptions): EditClassification {
  const reasons = [...new Set(relativePaths.map((p) => classifyEdit(p, options)).flatMap((c) => (c.decision === 'ask' ? [c.reason] : [])))];
  return reasons.length === 0 ? { decision: 'auto' } : { decision: 'ask', reason: reasons.join('; ') };
}

/**
 * The edit policy for a path the guard resolved: every spelling met on the way must pass, since
 * a workspace whose `.vscode` is a symlink to `conf/` still has VS Code read `.vscode/settings.json`,
 * and a link `cfg` → `.vscode` writes into it.
 */
export function classifyResolvedEdit(resolved: Pick<ResolvedWorkspacePath, 'aliases'>, options: EditPolicyOptions): EditClassification {
  return classifyEdits(resolved.aliases, options);
}
