/**
 * Settings a repository cannot set (issue #11). They decide where API keys go, what runs without
 * asking and how much may be spent, so only the person's own (user) settings count: the manifest
 * declares them `application`-scoped, and the host reads them through {@link userValue}, which
 * takes the user value and never a workspace or folder one, whatever VS Code merged.
 */

/** Every setting only user settings may set. */
export const USER_ONLY_SETTINGS = [
  'tasklane.model.provider',
  'tasklane.model.baseUrl',
  'tasklane.model.id',
  // A repository must not make a paid model look free (or cheap) to the cost caps.
  'tasklane.model.prices',
  'tasklane.approval.autoApproveEdits',
  'tasklane.approval.allowedCommands',
  'tasklane.budget.maxActionsPerTask',
  'tasklane.budget.maxTokensPerTask',
  // MCP servers defined here are trusted by their author: a repository must not add any.
  'tasklane.mcp.servers',
  // The runaway caps (src/core/engine/caps.ts).
  'tasklane.budget.maxActionsPerTurn',
  'tasklane.budget.maxTaskStartsPerTurn',
  'tasklane.budget.maxTaskStartsPerHour',
  'tasklane.budget.maxRunningTasks',
  // A repository must not shorten the list of variables kept from the commands it gets run.
  'tasklane.commands.hiddenEnvironmentVariables',
  'tasklane.chores.maxCostUsdPerDay',
  'tasklane.chores.maxCostUsdPerMonth',
  // Escalations carry a run's steps: a repository must not send them to its own webhook.
  'tasklane.chores.escalate',
  // The planner spends on the person's model: a repository must not switch it on or raise its cap.
  'tasklane.planner.enabled',
  'tasklane.planner.maxCostUsdPerDay',
  // The checks that judge a task run without a card: a repository proposes them in checks.json instead.
  'tasklane.checks.commands',
  'tasklane.checks.rounds',
] as const;

export type UserOnlySetting = (typeof USER_ONLY_SETTINGS)[number];

/** What VS Code's `WorkspaceConfiguration.inspect()` reports (the fields read here). */
export interface SettingInspection<T> {
  defaultValue?: T;
  globalValue?: T;
  workspaceValue?: T;
  workspaceFolderValue?: T;
}

/** The value to use, and where a value was set that was NOT used. */
export interface UserValue<T> {
  value: T;
  /** Set when a workspace (or folder) value exists and was ignored. */
  ignored?: 'workspace' | 'folder';
}

/** The user's value of a user-only setting, else `fallback`; a workspace/folder value is reported, never used. */
export function userValue<T>(inspection: SettingInspection<T> | undefined, fallback: T): UserValue<T> {
  const value = inspection?.globalValue !== undefined ? inspection.globalValue : fallback;
  if (inspection?.workspaceFolderValue !== undefined) return { value, ignored: 'folder' };
  if (inspection?.workspaceValue !== undefined) return { value, ignored: 'workspace' };
  return { value };
}

/**
 * The user-only settings a workspace settings file (`.vscode/settings.json`, JSON with comments)
 * tries to set. VS Code drops application-scoped keys from workspace settings before an extension
 * can inspect them, so the host reads the file itself to tell the person their repository asked.
 * Unreadable text yields no keys (the note is a courtesy; the guard is {@link userValue}).
 */
export function userOnlyKeysIn(settingsText: string): UserOnlySetting[] {
  let parsed: unknown;
  try {
    parsed = JSON.parse(stripJsonc(settingsText));
  } catch {
    return [];
  }
  if (!parsed || typeof parsed !== 'object' || Array.isArray(parsed)) return [];
  const keys = new Set(Object.keys(parsed));
  // A nested spelling ("tasklane": { "approval": {...} }) is not read by VS Code; only dotted keys are.
  return USER_ONLY_SETTINGS.filter((k) => keys.has(k));
}

/** Removes // and /* *\/ comments and trailing commas outside strings (enough for settings files). */
export function stripJsonc(text: string): string {
  let out = '';
  let i = 0;
  while (i < text.length) {
    const c = text[i];
    if (c === '"') {
      let j = i + 1;
      while (j < text.length && text[j] !== '"') j += text[j] === '\\' ? 2 : 1;
      out += text.slice(i, j + 1);
      i = j + 1;
    } else if (c === '/' && text[i + 1] === '/') {
      while (i < text.length && text[i] !== '\n') i++;
    } else if (c === '/' && text[i + 1] === '*') {
      const end = text.indexOf('*/', i + 2);
      i = end < 0 ? text.length : end + 2;
    } else {
      out += c;
      i++;
    }
  }
  return out.replace(/,(\s*[}\]])/g, '$1');
}
