import * as vscode from 'vscode';
import { forLabel } from '../core/security/surfaceText';
import { notice } from './notice';
import { createModelClient } from '../core/model/createModelClient';
import { guarded } from '../core/model/guarded';
import type { Logger } from '../core/ports';
import type { ModelClient } from '../core/model/types';
import { ModelError } from '../core/model/types';
import type { ModelStatusView } from '../shared/protocol';
import { envApiKey } from '../core/model/keySource';
import type { ProviderId, TasklaneSettings } from './settings';
import { selectLmChat, VsCodeLmClient } from './vscodeLmClient';

export type { ModelSettings, ProviderId } from './settings';
export const KEYED_PROVIDERS = ['anthropic', 'openai', 'openai-compatible'] as const;
type KeyedProvider = (typeof KEYED_PROVIDERS)[number];

const secretName = (provider: KeyedProvider) => `tasklane.apiKey.${provider}`;

/**
 * Turns the settings into a ModelClient, per turn (so a changed setting or key applies to the next
 * turn without a reload). Keys come only from SecretStorage, with the provider's environment
 * variable as a fallback for the official host only (core/model/keySource.ts); they are never
 * written to settings or logs. Provider, base URL and model come from user settings only.
 */
export class ModelProvider {
  constructor(
    private readonly secrets: vscode.SecretStorage,
    readonly settings: TasklaneSettings,
    private readonly logger?: Logger,
  ) {}

  async client(): Promise<ModelClient> {
    const settings = this.settings.model();
    if (settings.provider === 'vscode-lm' || settings.provider === 'auto') {
      const chat = await selectLmChat(settings.provider === 'vscode-lm' ? settings.model || undefined : undefined);
      if (chat) {
        const client = new VsCodeLmClient(chat);
        // The same guard as the API clients: timeoutSeconds and maxRetries apply to vscode-lm too.
        return guarded(client, { timeoutMs: settings.timeoutMs, maxRetries: settings.maxRetries, where: client.model, ...this.log() });
      }
      if (settings.provider === 'vscode-lm') {
        throw new ModelError(
          'no_model',
          "No VS Code language model is available. Install a model provider (such as GitHub Copilot) or run 'Tasklane: Select Model' to use an API.",
        );
      }
      // auto, with no VS Code model: an API whose key the user already has.
      for (const provider of ['anthropic', 'openai'] as const) {
        const apiKey = await this.apiKey(provider, '');
        if (apiKey)
          return createModelClient({
            provider,
            model: settings.model || undefined,
            apiKey,
            timeoutMs: settings.timeoutMs,
            maxRetries: settings.maxRetries,
            ...this.log(),
          });
      }
      throw new ModelError(
        'no_model',
        "No model is set up yet. Run 'Tasklane: Select Model' to choose Anthropic, OpenAI or an OpenAI-compatible server, or install a VS Code model provider.",
      );
    }
    return createModelClient({
      provider: settings.provider,
      model: settings.model || undefined,
      baseUrl: settings.baseUrl || undefined,
      apiKey: await this.apiKey(settings.provider, settings.baseUrl),
      timeoutMs: settings.timeoutMs,
      maxRetries: settings.maxRetries,
      ...this.log(),
    });
  }

  private log(): { logger?: Logger } {
    return this.logger ? { logger: this.logger } : {};
  }

  /** The stored key, else the environment's key when keySource.ts allows it for this provider and host. */
  async apiKey(provider: KeyedProvider, baseUrl: string): Promise<string | undefined> {
    const stored = await this.secrets.get(secretName(provider));
    if (stored) return stored;
    return envApiKey(provider, baseUrl, process.env);
  }

  async storeApiKey(provider: KeyedProvider, key: string): Promise<void> {
    await this.secrets.store(secretName(provider), key);
  }

  /** What the sidebar shows about the model: which one, and what to do if it cannot be used. */
  async status(): Promise<ModelStatusView> {
    const settings = this.settings.model();
    try {
      const client = await this.client();
      return { provider: client.provider, model: client.model };
    } catch (error) {
      return { provider: settings.provider, model: settings.model, problem: error instanceof Error ? error.message : String(error) };
    }
  }
}

/**
 * `Tasklane: Select Model`: provider, then (for keyed providers) base URL, model id and key.
 * Every step can be escaped; nothing is saved until the last step is confirmed.
 */
export async function selectModelFlow(models: ModelProvider): Promise<boolean> {
  const lmModels = await vscode.lm.selectChatModels({});
  const picks: Array<vscode.QuickPickItem & { provider: ProviderId; model?: string }> = [
    // A model's name and vendor are another extension's words.
    ...lmModels.map((m) => ({
      label: `$(sparkle) ${forLabel(m.name)}`,
      description: vscode.l10n.t('VS Code · {0}', forLabel(m.vendor)),
      provider: 'vscode-lm' as const,
      model: m.id,
    })),
    { label: 'Anthropic', description: vscode.l10n.t('Claude models with an API key'), provider: 'anthropic' },
    { label: 'OpenAI', description: vscode.l10n.t('GPT models with an API key'), provider: 'openai' },
    {
      label: vscode.l10n.t('OpenAI-compatible server'),
      description: vscode.l10n.t('Ollama, LM Studio, vLLM, OpenRouter… by base URL'),
      provider: 'openai-compatible',
    },
  ];
  const pick = await vscode.window.showQuickPick(picks, { title: vscode.l10n.t('Tasklane: choose a model provider'), ignoreFocusOut: true });
  if (!pick) return false;
  if (pick.provider === 'vscode-lm') {
    await models.settings.setModel({ provider: 'vscode-lm', model: pick.model ?? '' });
    return true;
  }
  const provider = pick.provider as KeyedProvider;
  let baseUrl = '';
  if (provider === 'openai-compatible') {
    const entered = await vscode.window.showInputBox({
      title: vscode.l10n.t('Base URL of the OpenAI-compatible server'),
      value: models.settings.model().baseUrl || 'http://127.0.0.1:11434/v1',
      ignoreFocusOut: true,
      validateInput: (v) => (/^https?:\/\/\S+$/.test(v.trim()) ? undefined : 'Enter an http(s) URL, e.g. http://127.0.0.1:11434/v1'),
    });
    if (entered === undefined) return false;
    baseUrl = entered.trim();
  }
  const model = await vscode.window.showInputBox({
    title: vscode.l10n.t('Model id'),
    prompt: vscode.l10n.t('Leave empty for the provider default.'),
    value: models.settings.model().provider === provider ? models.settings.model().model : '',
    ignoreFocusOut: true,
  });
  if (model === undefined) return false;
  if (!(await models.apiKey(provider, baseUrl))) {
    const key = await promptForKey(provider);
    if (key === undefined && provider !== 'openai-compatible') return false;
    if (key) await models.storeApiKey(provider, key);
  }
  await models.settings.setModel({ provider, model: model.trim(), ...(provider === 'openai-compatible' ? { baseUrl } : {}) });
  return true;
}

export function promptForKey(provider: KeyedProvider): Thenable<string | undefined> {
  return vscode.window.showInputBox({
    title: vscode.l10n.t('API key for {0}', provider),
    prompt: vscode.l10n.t('Stored in VS Code SecretStorage, never in settings.'),
    password: true,
    ignoreFocusOut: true,
    validateInput: (v) => (v.trim().length > 0 || provider === 'openai-compatible' ? undefined : 'Enter a key'),
  });
}

/** `Tasklane: Set API Key`. */
export async function setApiKeyFlow(models: ModelProvider): Promise<boolean> {
  const current = models.settings.model().provider;
  const provider = (KEYED_PROVIDERS as readonly string[]).includes(current)
    ? (current as KeyedProvider)
    : ((await vscode.window.showQuickPick([...KEYED_PROVIDERS], { title: vscode.l10n.t('Set the API key for which provider?') })) as KeyedProvider | undefined);
  if (!provider) return false;
  const key = await promptForKey(provider);
  if (!key) return false;
  await models.storeApiKey(provider, key.trim());
  return true;
}

/** `auto` with nothing usable: walk the user through choosing a provider (once per start). */
export async function offerModelSetup(models: ModelProvider): Promise<void> {
  if (models.settings.model().provider !== 'auto') return;
  const status = await models.status();
  if (!status.problem) return;
  const choice = await vscode.window.showInformationMessage(notice`Tasklane needs a model to work with.`, vscode.l10n.t('Choose a model'));
  if (choice) await selectModelFlow(models);
}
