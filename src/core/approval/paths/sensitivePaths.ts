/**
 * Which workspace files always need a person's approval to change (docs/DESIGN.md §6): files that can
 * execute code, steer the agent, or hold secrets (see SensitiveKind for the principle). Matching is on a normalised, case-folded form of
 * the workspace-relative path, so `.VSCode\tasks.json`, `./.git//config` or `package.json.` (which
 * Windows writes as package.json) cannot slip past.
 */

import { approvalReasonsWords, sensitiveWords } from '../../../shared/approvalReasons';
import type { ApprovalReason, SensitiveRuleId, SensitiveWhy } from '../../../shared/approvalReasons';

/**
 * The outcome of the edit policy for one path. `reasons` is what it means, as codes and values
 * (the host words them in the person's language, src/shared/approvalReasons.ts); `reason` is the
 * same in English for the model, the log and the CLI, which stay English on purpose.
 */
export type EditClassification = { decision: 'auto' } | { decision: 'ask'; reason: string; reasons: ApprovalReason[] };

/** An 'ask' with its English text made from its codes, so the two never say different things. */
function ask(reasons: ApprovalReason[]): EditClassification {
  return { decision: 'ask', reason: approvalReasonsWords(reasons), reasons };
}

/** Settings that shape the edit policy (`tasklane.approval.autoApproveEdits`). */
export interface EditPolicyOptions {
  /** Apply ordinary workspace edits without asking. Sensitive paths still ask. */
  autoApproveEdits: boolean;
}

/**
 * Why a family of files always asks. The principle (README "Security model"): a file is sensitive
 * when writing it can make code run without another decision by the person (hooks, build and CI
 * manifests, configs that tools load as code, editor tasks), when it steers the agent itself
 * (instructions, skills, chores, memory), or when it holds secrets. Reads are not affected.
 */
export type SensitiveKind = 'runs code' | 'steers the agent' | 'holds secrets';

/** One sensitive pattern: a predicate over the normalised path's segments, and which family it is (worded in src/shared/approvalReasons.ts). */
interface SensitiveRule {
  pattern: string;
  kind: SensitiveKind;
  rule: SensitiveRuleId;
  matches(segments: string[]): boolean;
}

const last = (segments: string[]): string => segments[segments.length - 1] ?? '';

/** A folder of that name at any depth: everything under it. */
const folder = (name: string) => (s: string[]) => s.includes(name);
/** `parent/child` at any depth: everything under it. */
const subfolder = (parent: string, child: string) => (s: string[]) => s.some((segment, i) => segment === parent && s[i + 1] === child);
/** A file of one of these names at any depth. */
const named =
  (...names: string[]) =>
  (s: string[]) =>
    names.includes(last(s));
/** A file whose name matches at any depth. */
const nameMatches = (pattern: RegExp) => (s: string[]) => pattern.test(last(s));

/** Extensions a tool can `import`/`require` as code. */
const CODE_EXT = '(?:js|cjs|mjs|ts|cts|mts|jsx|tsx|coffee)';

/**
 * Patterns match at any depth: a nested package.json has its own scripts, a nested .vscode folder
 * takes effect when that folder is opened, and asking too often costs a click, not a breach.
 * Names are compared case-folded (Makefile and makefile are both read by make).
 */
const SENSITIVE_RULES: readonly SensitiveRule[] = [
  // The agent's own powers: what it is told, what it can become, what runs later without a person.
  { pattern: '.tasklane/**', kind: 'steers the agent', rule: 'tasklane', matches: folder('.tasklane') },
  {
    pattern: 'AGENTS.md',
    kind: 'steers the agent',
    rule: 'agentInstructions',
    matches: named('agents.md', 'agent.md', 'claude.md', 'gemini.md', '.cursorrules', '.clinerules', '.windsurfrules'),
  },
  { pattern: '.agents/**', kind: 'steers the agent', rule: 'agentsSkills', matches: folder('.agents') },
  { pattern: '.claude/**', kind: 'steers the agent', rule: 'claudeFolder', matches: folder('.claude') },
  { pattern: '.github/skills/**', kind: 'steers the agent', rule: 'githubSkills', matches: subfolder('.github', 'skills') },
  {
    pattern: '.github/copilot-instructions.md',
    kind: 'steers the agent',
    rule: 'copilotInstructions',
    matches: (s) => ['copilot-instructions.md', 'instructions', 'prompts', 'chatmodes', 'agents'].some((child) => subfolder('.github', child)(s)),
  },
  {
    pattern: '.cursor/**',
    kind: 'steers the agent',
    rule: 'otherAgents',
    matches: (s) => ['.cursor', '.continue', '.kiro', '.clinerules', '.windsurf'].some((name) => folder(name)(s)),
  },
  { pattern: '.github/CODEOWNERS', kind: 'steers the agent', rule: 'codeowners', matches: (s) => named('codeowners')(s) },
  // The editor and git: what runs when the folder is opened, on commit or on checkout.
  {
    pattern: '.vscode/*.json',
    kind: 'runs code',
    rule: 'vscodeJson',
    matches: (s) => s.length >= 2 && s[s.length - 2] === '.vscode' && last(s).endsWith('.json'),
  },
  {
    pattern: '*.code-workspace',
    kind: 'runs code',
    rule: 'codeWorkspace',
    matches: (s) => last(s).endsWith('.code-workspace'),
  },
  { pattern: '.git/**', kind: 'runs code', rule: 'gitInternals', matches: folder('.git') },
  { pattern: '.husky/**', kind: 'runs code', rule: 'gitHooks', matches: (s) => folder('.husky')(s) || folder('.githooks')(s) },
  {
    pattern: '.pre-commit-config.yaml',
    kind: 'runs code',
    rule: 'hookManagers',
    matches: named('.pre-commit-config.yaml', 'lefthook.yml', 'lefthook.yaml', '.lefthook.yml'),
  },
  {
    pattern: '.gitattributes',
    kind: 'runs code',
    rule: 'gitAttributes',
    matches: named('.gitattributes', '.gitmodules'),
  },
  {
    pattern: '.devcontainer/**',
    kind: 'runs code',
    rule: 'devcontainer',
    matches: (s) => folder('.devcontainer')(s) || named('.devcontainer.json')(s),
  },
  // Package managers: install and run scripts, or fetch what a lockfile points at.
  { pattern: 'package.json', kind: 'runs code', rule: 'packageJson', matches: named('package.json') },
  {
    pattern: '.npmrc',
    kind: 'runs code',
    rule: 'npmConfig',
    matches: named('.npmrc', '.pnpmfile.cjs', 'pnpm-workspace.yaml', '.bunfig.toml', 'bunfig.toml'),
  },
  {
    pattern: '.yarnrc*',
    kind: 'runs code',
    rule: 'yarnConfig',
    matches: (s) => last(s).startsWith('.yarnrc') || folder('.yarn')(s),
  },
  {
    pattern: 'lockfiles',
    kind: 'runs code',
    rule: 'lockfiles',
    matches: named('package-lock.json', 'npm-shrinkwrap.json', 'yarn.lock', 'pnpm-lock.yaml', 'bun.lockb', 'bun.lock'),
  },
  { pattern: 'node_modules/**', kind: 'runs code', rule: 'nodeModules', matches: folder('node_modules') },
  // Tool configs that are themselves code, or name code to load (plugins by path).
  {
    pattern: '*.config.{js,ts,…}',
    kind: 'runs code',
    rule: 'codeConfigs',
    matches: nameMatches(new RegExp(`\\.config\\.${CODE_EXT}$`)),
  },
  {
    pattern: '.eslintrc* / .prettierrc* / …',
    kind: 'runs code',
    rule: 'toolRcFiles',
    matches: nameMatches(/^\.(eslintrc|prettierrc|babelrc|mocharc|stylelintrc|lintstagedrc|commitlintrc|swcrc|postcssrc|nycrc|c8rc)/),
  },
  // CI: runs with the repository's secrets.
  {
    pattern: '.github/workflows/**',
    kind: 'runs code',
    rule: 'githubWorkflows',
    matches: subfolder('.github', 'workflows'),
  },
  { pattern: '.github/actions/**', kind: 'runs code', rule: 'githubActions', matches: subfolder('.github', 'actions') },
  {
    pattern: '.gitlab-ci.yml',
    kind: 'runs code',
    rule: 'ciPipelines',
    matches: (s) =>
      named('.gitlab-ci.yml', '.travis.yml', 'bitbucket-pipelines.yml', '.drone.yml', 'jenkinsfile', 'appveyor.yml', '.appveyor.yml')(s) ||
      nameMatches(/^azure-pipelines.*\.ya?ml$/)(s),
  },
  {
    pattern: '.circleci/**',
    kind: 'runs code',
    rule: 'ciFolders',
    matches: (s) => folder('.circleci')(s) || folder('.buildkite')(s) || folder('.gitlab')(s),
  },
  // Build manifests of other ecosystems: their equivalent of package.json scripts.
  {
    pattern: 'Makefile / pyproject.toml / setup.py / …',
    kind: 'runs code',
    rule: 'buildManifests',
    matches: (s) =>
      named(
        'makefile',
        'gnumakefile',
        'justfile',
        '.justfile',
        'taskfile.yml',
        'taskfile.yaml',
        'rakefile',
        'gemfile',
        'dockerfile',
        'pyproject.toml',
        'setup.py',
        'setup.cfg',
        'conftest.py',
        'tox.ini',
        'noxfile.py',
        'pipfile',
        'cargo.toml',
        'build.rs',
        'composer.json',
        'cmakelists.txt',
        'meson.build',
        'pom.xml',
        'gradlew',
        'mvnw',
        'build.gradle',
        'build.gradle.kts',
        'settings.gradle',
        'settings.gradle.kts',
        'build.sbt',
      )(s) ||
      nameMatches(/\.mk$/)(s) ||
      folder('.cargo')(s) ||
      folder('.mvn')(s),
  },
  // Secrets.
  {
    pattern: '.env*',
    kind: 'holds secrets',
    rule: 'envFiles',
    matches: (s) => last(s).startsWith('.env'),
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
 * Why a path is sensitive, as data, or undefined when it is not. Also tried with each segment cut
 * at the first `:`, since on Windows `package.json::$DATA` is package.json itself (an NTFS stream name).
 */
export function sensitiveWhy(relativePath: string): SensitiveWhy | undefined {
  const segments = normaliseForMatching(relativePath);
  if (segments === undefined) return { rule: 'climbsAboveRoot' };
  const withoutStreams = segments.map((s) => s.split(':')[0].replace(/[. ]+$/, ''));
  for (const candidate of [segments, withoutStreams]) {
    const rule = SENSITIVE_RULES.find((r) => r.matches(candidate));
    if (rule !== undefined) return { rule: rule.rule, pattern: rule.pattern };
  }
  return undefined;
}

/** Why a path is sensitive in English (the CLI, the model), or undefined when it is not. */
export function sensitiveReason(relativePath: string): string | undefined {
  const why = sensitiveWhy(relativePath);
  return why === undefined ? undefined : sensitiveWords(why);
}

/**
 * The edit policy for one workspace-relative path (run it through resolveWorkspacePath first;
 * paths outside the workspace are refused there, not here). Pass every path an edit touches:
 * both sides of a rename, and both the requested and the physical path of a symlinked file.
 */
export function classifyEdit(relativePath: string, options: EditPolicyOptions): EditClassification {
  const why = sensitiveWhy(relativePath);
  if (why !== undefined) return ask([{ code: 'sensitivePath', path: relativePath, why }]);
  if (!options.autoApproveEdits) return ask([{ code: 'editsNeedApproval' }]);
  return { decision: 'auto' };
}

/** The strictest classification over several paths: asks if any of them asks, with every reason. */
export function classifyEdits(relativePaths: readonly string[], options: EditPolicyOptions): EditClassification {
  const reasons = uniqueReasons(relativePaths.map((p) => classifyEdit(p, options)).flatMap((c) => (c.decision === 'ask' ? c.reasons : [])));
  return reasons.length === 0 ? { decision: 'auto' } : ask(reasons);
}

/**
 * The edit policy for a path the guard resolved: every spelling met on the way must pass, since
 * a workspace whose `.vscode` is a symlink to `conf/` still has VS Code read `.vscode/settings.json`,
 * and a link `cfg` → `.vscode` writes into it. A hard-linked file (its other names unknown) and a
 * workspace the link scan could not finish always ask (see editTarget.ts).
 */
export function classifyResolvedEdit(
  resolved: { aliases: readonly string[]; hardLinked?: boolean; complete?: boolean },
  options: EditPolicyOptions,
): EditClassification {
  const base = classifyEdits(resolved.aliases, options);
  const extra: ApprovalReason[] = [];
  const shown = resolved.aliases[resolved.aliases.length - 1] ?? resolved.aliases[0] ?? '';
  if (resolved.hardLinked) extra.push({ code: 'hardLink', path: shown });
  if (resolved.complete === false) extra.push({ code: 'linkScanIncomplete', path: shown });
  if (extra.length === 0) return base;
  return ask([...(base.decision === 'ask' ? base.reasons : []), ...extra]);
}

/** Each reason once (the same one met through two spellings of a path), in order. */
export function uniqueReasons(reasons: readonly ApprovalReason[]): ApprovalReason[] {
  const seen = new Set<string>();
  return reasons.filter((r) => {
    const key = JSON.stringify(r);
    return seen.has(key) ? false : (seen.add(key), true);
  });
}
