/**
 * Builds the SDK-backed ModelClient for a provider setting, under the guard every client runs
 * under (guarded.ts). (The vscode-lm provider is built in src/host and guarded there the same
 * way; this factory only knows the HTTP providers.)
 */
import type { Logger } from '../ports';
import { AnthropicClient } from './anthropicClient';
import { guarded } from './guarded';
import type { GuardedModelClient } from './guarded';
import { envApiKey, isOfficialHost } from './keySource';
import { OpenAiClient } from './openaiClient';
import { ModelError } from './types';

export type SdkProvider = 'openai' | 'openai-compatible' | 'anthropic';

/** What the settings and SecretStorage say about the model to use. */
export interface ModelClientConfig {
  provider: SdkProvider;
  /** Model id; default per provider (see DEFAULT_MODELS). Required for openai-compatible. */
  model?: string;
  /** Endpoint; for openai-compatible default http://localhost:11434/v1 (Ollama). */
  baseUrl?: string;
  /** From SecretStorage. Falls back to OPENAI_API_KEY / ANTHROPIC_API_KEY only at the official host (keySource.ts), never for openai-compatible. */
  apiKey?: string;
  timeoutMs?: number;
  maxRetries?: number;
  stream?: boolean;
  logger?: Logger;
  /** Environment to read fallback keys from; default process.env (tests pass their own). */
  env?: Readonly<Record<string, string | undefined>>;
}

/** Capable, mid-priced models with tool calling that the SDKs do not flag as deprecated. */
export const DEFAULT_MODELS: Readonly<Record<'openai' | 'anthropic', string>> = {
  openai: 'gpt-5-mini',
  anthropic: 'claude-sonnet-4-6',
};

export const DEFAULT_COMPATIBLE_BASE_URL = 'http://localhost:11434/v1';

/** Sent to keyless local servers: the SDK insists on some key, and they ignore it. */
export const PLACEHOLDER_KEY = 'not-needed';

export function createModelClient(config: ModelClientConfig): GuardedModelClient {
  const client = sdkClient(config);
  return guarded(client, {
    ...(config.timeoutMs !== undefined ? { timeoutMs: config.timeoutMs } : {}),
    ...(config.maxRetries !== undefined ? { maxRetries: config.maxRetries } : {}),
    ...(config.logger ? { logger: config.logger } : {}),
    where: client.baseUrl,
  });
}

function sdkClient(config: ModelClientConfig): AnthropicClient | OpenAiClient {
  const env = config.env ?? process.env;
  const common = config.stream !== undefined ? { stream: config.stream } : {};
  const baseUrl = config.baseUrl?.trim() || undefined;
  if (baseUrl) checkUrl(baseUrl, config.provider);

  switch (config.provider) {
    case 'anthropic': {
      const apiKey = config.apiKey?.trim() || envApiKey('anthropic', baseUrl, env);
      if (!apiKey) throw missingKey('Anthropic', 'ANTHROPIC_API_KEY', isOfficialHost('anthropic', baseUrl));
      return new AnthropicClient({ ...common, model: config.model?.trim() || DEFAULT_MODELS.anthropic, apiKey, ...(baseUrl ? { baseUrl } : {}) });
    }
    case 'openai': {
      const apiKey = config.apiKey?.trim() || envApiKey('openai', baseUrl, env);
      if (!apiKey) throw missingKey('OpenAI', 'OPENAI_API_KEY', isOfficialHost('openai', baseUrl));
      return new OpenAiClient({ ...common, provider: 'openai', model: config.model?.trim() || DEFAULT_MODELS.openai, apiKey, ...(baseUrl ? { baseUrl } : {}) });
    }
    case 'openai-compatible': {
      const url = baseUrl ?? DEFAULT_COMPATIBLE_BASE_URL;
      const model = config.model?.trim();
      if (!model) {
        throw new ModelError(
          'no_model',
          `No model id for the OpenAI-compatible server at ${url}. Set tasklane.model.id to a model it serves (for Ollama, one listed by 'ollama list').`,
          { provider: config.provider },
        );
      }
      // OPENAI_API_KEY is deliberately not used here: it would be sent to a third-party server.
      const apiKey = config.apiKey?.trim() || PLACEHOLDER_KEY;
      return new OpenAiClient({ ...common, provider: 'openai-compatible', model, apiKey, baseUrl: url });
    }
    default: {
      const unknown: never = config.provider;
      throw new ModelError(
        'no_model',
        `Unknown model provider '${String(unknown)}'. Set tasklane.model.provider to anthropic, openai, openai-compatible or vscode-lm.`,
      );
    }
  }
}

function missingKey(name: string, envVar: string, official: boolean): ModelError {
  const env = official
    ? `, or set ${envVar} in the environment VS Code starts from`
    : ` (${envVar} is used only with ${name}'s own host, not with the base URL set in tasklane.model.baseUrl)`;
  return new ModelError('missing_key', `No ${name} API key. Run 'Tasklane: Set API Key'${env}.`, { provider: name.toLowerCase() });
}

function checkUrl(url: string, provider: SdkProvider): void {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    throw new ModelError('connection', `tasklane.model.baseUrl '${url}' is not a URL. Use e.g. http://localhost:11434/v1.`, { provider });
  }
  if (parsed.protocol !== 'http:' && parsed.protocol !== 'https:') {
    throw new ModelError('connection', `tasklane.model.baseUrl '${url}' must start with http:// or https://.`, { provider });
  }
}
