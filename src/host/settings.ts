import { isProviderId } from '../core/model/providers';
import type { ProviderId } from '../core/model/providers';
import * as vscode from 'vscode';
import type { MemorySettings, StorageSettings } from '../core/engine/types';
import type { EditPolicyOptions } from '../core/approval/paths/sensitivePaths';
import type { RunawayCaps } from '../core/engine/caps';
import type { Logger } from '../core/ports';
import { parseModelPrices } from '../core/model/pricing';
import { DEFAULT_MODELS } from '../core/model/createModelClient';
import type { ModelCostContext } from '../core/chores/chorePreview';
import type { ModelPrices } from '../core/model/pricing';
import { USER_ONLY_SETTINGS, userOnlyKeysIn, userValue } from '../core/settings/userOnlySettings';
import type { UserOnlySetting } from '../core/settings/userOnlySettings';
import { escalationChannelsFrom } from '../core/chores/choreSchema';
import type { EscalationChannels } from '../core/chores/types';
import { forNotification } from '../core/security/surfaceText';
import { notice } from './notice';

export type { ProviderId } from '../core/model/providers';

/** Model settings as the user configured them (docs/DESIGN.md §9). */
export interface ModelSettings {
  provider: ProviderId;
  model: string;
  baseUrl: string;
  timeoutMs: number;
  maxRetries: number;
}

/** The per-task budget and the runaway caps (tasklane.budget.*). */
export interface BudgetSettings {
  maxActionsPerTask: number;
  maxTokensPerTask: number;
  /** Unset ones take DEFAULT_CAPS (src/core/engine/caps.ts). */
  caps: Partial<RunawayCaps>;
}

/** Chore switches and caps across chores (tasklane.chores.*). */
export interface ChoreSettings {
  /** The master switch: false stops every chore (their fires are recorded as skipped). */
  enabled: boolean;
  /** USD all chores of the workspace may spend per UTC day / month; 0 means no cap. */
  maxCostUsdPerDay: number;
  maxCostUsdPerMonth: number;
}

/**
 * Every Tasklane setting is read here, and only here (issue #11). The settings that decide where
 * keys go, what runs without asking and how much may be spent ({@link USER_ONLY_SETTINGS}) are
 * read from the person's user settings only; a value a workspace or folder sets for them is
 * ignored, and the person is told so once per key (a warning and a log line), so a repository's
 * `.vscode/settings.json` can neither redirect a key, nor switch approval off, nor raise a budget.
 */
export class TasklaneSettings implements vscode.Disposable {
  private readonly noted = new Set<string>();
  private readonly pricesLogged = new Set<string>();
  private readonly shown: string[] = [];
  private readonly disposables: vscode.Disposable[] = [];

  constructor(
    private readonly logger: Logger,
    /** Shows the note; a test or a headless host can pass its own. */
    private readonly warn: (message: string) => void = (message) => void vscode.window.showWarningMessage(forNotification(message)),
  ) {}

  model(): ModelSettings {
    const config = vscode.workspace.getConfiguration('tasklane.model');
    return {
      // A value outside the list (hand-edited settings.json) is `auto`, never an unknown provider.
      provider: providerOrAuto(this.userOnly<unknown>('tasklane.model.provider', 'auto')),
      model: this.userOnly('tasklane.model.id', ''),
      baseUrl: this.userOnly('tasklane.model.baseUrl', ''),
      timeoutMs: config.get<number>('timeoutSeconds', 60) * 1000,
      maxRetries: config.get<number>('maxRetries', 2),
    };
  }

  /** Saves the model choice in the user's settings (the only place it is read from). */
  async setModel(choice: { provider: ProviderId; model: string; baseUrl?: string }): Promise<void> {
    const config = vscode.workspace.getConfiguration('tasklane.model');
    await config.update('provider', choice.provider, vscode.ConfigurationTarget.Global);
    await config.update('id', choice.model, vscode.ConfigurationTarget.Global);
    if (choice.baseUrl !== undefined) await config.update('baseUrl', choice.baseUrl, vscode.ConfigurationTarget.Global);
  }

  /**
   * The person's model prices (`tasklane.model.prices`), user settings only: a repository that
   * priced its model at 0 would switch every cost cap off. Invalid entries are left out (the model
   * is then estimated, never free) and logged once.
   */
  modelPrices(): ModelPrices {
    const { prices, problems } = parseModelPrices(this.userOnly<unknown>('tasklane.model.prices', {}));
    for (const problem of problems) {
      if (this.pricesLogged.has(problem)) continue;
      this.pricesLogged.add(problem);
      this.logger.warn('HOST', `tasklane.model.prices ${problem}; that entry is ignored`);
    }
    return prices;
  }

  /**
   * The model chores run on, as far as its price goes (Preview Chore's cost note): the model id
   * set, else the provider's default; undefined under `auto` with no id (not known before a run).
   */
  modelCost(): ModelCostContext | undefined {
    const { provider, model } = this.model();
    const id = model || (provider === 'openai' || provider === 'anthropic' ? DEFAULT_MODELS[provider] : provider === 'vscode-lm' ? 'vscode-lm' : '');
    return id ? { id, prices: this.modelPrices(), where: 'your user setting tasklane.model.prices' } : undefined;
  }

  editPolicy(): EditPolicyOptions {
    return { autoApproveEdits: this.userOnly<unknown>('tasklane.approval.autoApproveEdits', false) === true };
  }

  /** The person's own checks for tasks (`tasklane.checks.*`, user scope only). */
  checks(): { commands: string[]; rounds?: number } {
    const commands = this.userOnly<unknown>('tasklane.checks.commands', []);
    const rounds = this.userOnly<unknown>('tasklane.checks.rounds', 3);
    return {
      commands: Array.isArray(commands) ? commands.filter((v): v is string => typeof v === 'string') : [],
      ...(typeof rounds === 'number' && Number.isFinite(rounds) ? { rounds: Math.max(1, Math.round(rounds)) } : {}),
    };
  }

  allowedCommands(): string[] {
    const value = this.userOnly<unknown>('tasklane.approval.allowedCommands', []);
    return Array.isArray(value) ? value.filter((v): v is string => typeof v === 'string') : [];
  }

  /** How long one MCP tool call may take before it ends with a clear error (`tasklane.mcp.callTimeoutSeconds`). */
  mcpCallTimeoutMs(): number {
    const seconds = vscode.workspace.getConfiguration('tasklane.mcp').get<number>('callTimeoutSeconds', 60);
    return Math.min(Math.max(Number.isFinite(seconds) ? seconds : 60, 1), 3600) * 1000;
  }

  /** The person's own MCP server definitions (the `servers` object of mcp.json's format). */
  mcpServers(): unknown {
    return this.userOnly<unknown>('tasklane.mcp.servers', undefined);
  }

  /** Extra variables kept out of commands' and tasks' environment (model keys always are). */
  hiddenEnvironmentVariables(): string[] {
    const value = this.userOnly<unknown>('tasklane.commands.hiddenEnvironmentVariables', []);
    return Array.isArray(value) ? value.filter((v): v is string => typeof v === 'string') : [];
  }

  budget(): BudgetSettings {
    return {
      maxActionsPerTask: this.userOnly('tasklane.budget.maxActionsPerTask', 50),
      maxTokensPerTask: this.userOnly('tasklane.budget.maxTokensPerTask', 500_000),
      caps: {
        maxActionsPerTurn: this.userOnly<number | undefined>('tasklane.budget.maxActionsPerTurn', undefined),
        maxTaskStartsPerTurn: this.userOnly<number | undefined>('tasklane.budget.maxTaskStartsPerTurn', undefined),
        maxTaskStartsPerHour: this.userOnly<number | undefined>('tasklane.budget.maxTaskStartsPerHour', undefined),
        maxRunningTasks: this.userOnly<number | undefined>('tasklane.budget.maxRunningTasks', undefined),
      },
    };
  }

  /**
   * Archive and retention schedules. Workspace values count: they only move rows to the archive
   * sooner or later, or keep the trigger history shorter; nothing is spent or run by them.
   */
  storage(): StorageSettings {
    const config = vscode.workspace.getConfiguration('tasklane.storage');
    return {
      settledTriggerDays: config.get<number>('settledTriggerDays', 7),
      ledgerDays: config.get<number>('ledgerDays', 30),
      sessionDays: config.get<number>('sessionDays', 7),
      approvalDays: config.get<number>('approvalDays', 7),
    };
  }

  /** Memory distillation (`tasklane.memory.*`); a workspace may switch it off or slow it down. */
  memory(): MemorySettings {
    const config = vscode.workspace.getConfiguration('tasklane.memory');
    return {
      enabled: config.get<boolean>('enabled', true),
      intervalMinutes: config.get<number>('intervalMinutes', 60),
      minEvents: config.get<number>('minEvents', 20),
      maxChars: config.get<number>('maxChars', 6000),
    };
  }

  /**
   * The proactive planner: on and its cap are user-only (it spends on the person's model); the
   * interval may come from anywhere (a longer one only spends less).
   */
  planner(): { enabled: boolean; intervalMs: number; dailyCapUsd: number } {
    const cap = this.userOnly<unknown>('tasklane.planner.maxCostUsdPerDay', 0.1);
    const minutes = vscode.workspace.getConfiguration('tasklane.planner').get<number>('intervalMinutes', 240);
    return {
      enabled: this.userOnly<unknown>('tasklane.planner.enabled', false) === true,
      intervalMs: Math.max(30, typeof minutes === 'number' ? minutes : 240) * 60_000,
      dailyCapUsd: typeof cap === 'number' && cap >= 0 ? cap : 0.1,
    };
  }

  /**
   * The master switch may come from the workspace (a repository turning its chores off is safe);
   * the caps are user-only, like every budget, so a repository cannot raise them.
   */
  chores(): ChoreSettings {
    const number = (key: UserOnlySetting, fallback: number) => {
      const value = this.userOnly<unknown>(key, fallback);
      return typeof value === 'number' && value >= 0 ? value : fallback;
    };
    return {
      enabled: vscode.workspace.getConfiguration('tasklane.chores').get<boolean>('enabled', true) !== false,
      maxCostUsdPerDay: number('tasklane.chores.maxCostUsdPerDay', 5),
      maxCostUsdPerMonth: number('tasklane.chores.maxCostUsdPerMonth', 50),
    };
  }

  /**
   * The person's default escalation channel (`tasklane.chores.escalate`, user settings only), or
   * undefined when none is set or it is malformed (then the problem is logged once per value).
   */
  escalate(): EscalationChannels | undefined {
    const value = this.userOnly<unknown>('tasklane.chores.escalate', undefined);
    if (!value || typeof value !== 'object' || Object.keys(value).length === 0) return undefined;
    const parsed = escalationChannelsFrom(value);
    if ('channels' in parsed) return parsed.channels;
    const key = JSON.stringify(value);
    if (this.reportedEscalate !== key) {
      this.reportedEscalate = key;
      void vscode.window.showWarningMessage(notice`Tasklane: the setting tasklane.chores.escalate is not used: ${parsed.problem}.`);
    }
    return undefined;
  }

  private reportedEscalate: string | undefined;

  /**
   * Looks for user-only keys in each folder's `.vscode/settings.json` now and whenever it changes.
   * VS Code itself drops application-scoped keys from workspace settings before `inspect()` can
   * show them, so without reading the file the person would never learn their repository tried.
   */
  watchWorkspaceFiles(): void {
    for (const folder of vscode.workspace.workspaceFolders ?? []) {
      const file = vscode.Uri.joinPath(folder.uri, '.vscode/settings.json');
      const check = () => void this.checkFile(file);
      const watcher = vscode.workspace.createFileSystemWatcher(new vscode.RelativePattern(folder, '.vscode/settings.json'));
      this.disposables.push(watcher, watcher.onDidChange(check), watcher.onDidCreate(check));
      check();
    }
    this.disposables.push(
      vscode.workspace.onDidChangeConfiguration((e) => {
        for (const key of USER_ONLY_SETTINGS) if (e.affectsConfiguration(key)) this.userOnly(key, undefined);
      }),
    );
  }

  /** The keys noted so far (for `tasklane.getState`). */
  ignoredKeys(): string[] {
    return [...this.noted].sort();
  }

  /** The notes shown so far, oldest first (for `tasklane.getState`). */
  notes(): string[] {
    return [...this.shown];
  }

  dispose(): void {
    for (const d of this.disposables) d.dispose();
  }

  private async checkFile(file: vscode.Uri): Promise<void> {
    let text: string;
    try {
      text = new TextDecoder().decode(await vscode.workspace.fs.readFile(file));
    } catch {
      return; // No workspace settings file: nothing to say.
    }
    this.note(userOnlyKeysIn(text), 'workspace');
  }

  private userOnly<T>(key: UserOnlySetting, fallback: T): T {
    const dot = key.lastIndexOf('.');
    const inspection = vscode.workspace.getConfiguration(key.slice(0, dot)).inspect<T>(key.slice(dot + 1));
    const result = userValue(inspection, fallback);
    if (result.ignored) this.note([key], result.ignored);
    return result.value;
  }

  private note(keys: readonly string[], where: 'workspace' | 'folder'): void {
    const fresh = keys.filter((k) => !this.noted.has(k));
    if (!fresh.length) return;
    for (const k of fresh) this.noted.add(k);
    const message = `Tasklane ignores ${fresh.join(', ')} from this ${where}'s settings: only your user settings can set ${fresh.length === 1 ? 'it' : 'them'} (where API keys go, what runs without asking, budgets). Set ${fresh.length === 1 ? 'it' : 'them'} in your user settings if you want ${fresh.length === 1 ? 'it' : 'them'}.`;
    this.shown.push(message);
    this.logger.warn('HOST', message);
    this.warn(message);
  }
}

function providerOrAuto(value: unknown): ProviderId {
  return isProviderId(value) ? value : 'auto';
}
