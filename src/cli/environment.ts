/**
 * What the headless runner takes from its environment: the model (TASKLANE_MODEL_PROVIDER,
 * TASKLANE_MODEL_BASE_URL, TASKLANE_MODEL_ID and the provider's usual key variable), its price
 * (TASKLANE_MODEL_PRICES, the JSON of VS Code's `tasklane.model.prices`) and chore secrets
 * (TASKLANE_SECRET_<NAME>). On a CI machine the environment is the person's configuration
 * (repository secrets and variables), so unlike in VS Code, where a repository's settings must
 * not steer keys, the base URL and key given here are used as given.
 */
import { createModelClient, DEFAULT_MODELS } from '../core/model/createModelClient';
import { parseModelPrices } from '../core/model/pricing';
import type { ModelPrices } from '../core/model/pricing';
import type { SdkProvider } from '../core/model/createModelClient';
import type { ModelClient } from '../core/model/types';
import type { Logger } from '../core/ports';
import { secretVariable } from '../core/chores/secretScope';
import { MODEL_KEY_VARIABLES, Redactor } from '../core/security/redact';

type Env = Readonly<Record<string, string | undefined>>;

const PROVIDERS: readonly SdkProvider[] = ['anthropic', 'openai', 'openai-compatible'];

/** Thrown for a configuration the run cannot start with; exit code 2. */
export class UsageError extends Error {
  override readonly name = 'UsageError';
}

const providerOf = (env: Env) =>
  (env.TASKLANE_MODEL_PROVIDER?.trim() || (env.ANTHROPIC_API_KEY ? 'anthropic' : env.OPENAI_API_KEY ? 'openai' : '')) as SdkProvider | '';

/** The model id runs will use (the provider's default when none is set), or undefined when no model is configured. */
export function modelIdFromEnv(env: Env): string | undefined {
  const provider = providerOf(env);
  const id = env.TASKLANE_MODEL_ID?.trim();
  if (id) return id;
  return provider === 'anthropic' || provider === 'openai' ? DEFAULT_MODELS[provider] : undefined;
}

/** The variable headless runs read model prices from (same JSON as `tasklane.model.prices`). */
export const pricesVariable = 'TASKLANE_MODEL_PRICES';

/**
 * The person's model prices from TASKLANE_MODEL_PRICES, e.g. `{"deepseek/*": {"input": 0.3,
 * "output": 1.2}}`. Strict, unlike the VS Code setting: a CI run with a mistyped price stops with
 * exit code 2 rather than running on an estimate nobody asked for.
 */
export function pricesFromEnv(env: Env): ModelPrices {
  const text = env[pricesVariable]?.trim();
  if (!text) return {};
  let raw: unknown;
  try {
    raw = JSON.parse(text);
  } catch (error) {
    throw new UsageError(`${pricesVariable} is not JSON (${(error as Error).message}); write e.g. {"my-model": {"input": 0.5, "output": 1.5}}.`);
  }
  const { prices, problems } = parseModelPrices(raw);
  if (problems.length) throw new UsageError(`${pricesVariable}: ${problems.join('; ')}.`);
  return prices;
}

/** The model client the environment describes; throws UsageError when it describes none. */
export function modelFromEnv(env: Env, logger: Logger): () => Promise<ModelClient> {
  const provider = providerOf(env);
  if (!provider) {
    throw new UsageError(
      "No model configured: set TASKLANE_MODEL_PROVIDER (anthropic, openai or openai-compatible) and the provider's key (ANTHROPIC_API_KEY or OPENAI_API_KEY).",
    );
  }
  if (!PROVIDERS.includes(provider)) throw new UsageError(`TASKLANE_MODEL_PROVIDER is "${provider}"; use one of ${PROVIDERS.join(', ')}.`);
  const baseUrl = env.TASKLANE_MODEL_BASE_URL?.trim();
  if (provider === 'openai-compatible' && !baseUrl)
    throw new UsageError('TASKLANE_MODEL_PROVIDER is openai-compatible: set TASKLANE_MODEL_BASE_URL to the server (e.g. http://127.0.0.1:11434/v1).');
  // An OpenAI-compatible server is the person's own choice of host here; its key, if any, is the OpenAI variable.
  const apiKey = provider === 'anthropic' ? env.ANTHROPIC_API_KEY : env.OPENAI_API_KEY;
  const model = env.TASKLANE_MODEL_ID?.trim();
  const client = createModelClient({
    provider,
    ...(model ? { model } : {}),
    ...(baseUrl ? { baseUrl } : {}),
    ...(apiKey ? { apiKey } : {}),
    env: {},
    logger,
  });
  return async () => client;
}

export function secretsFromEnv(env: Env): (name: string) => string | undefined {
  return (name) => env[secretVariable(name)] || undefined;
}

/**
 * A Redactor that knows every secret this environment holds: the model keys and each
 * TASKLANE_SECRET_* value, whether or not the chore names it (the VS Code host learns secrets as
 * it reads them; here they are all known before the run starts).
 */
export function redactorFromEnv(env: Env): Redactor {
  const redactor = new Redactor();
  for (const name of MODEL_KEY_VARIABLES) redactor.addSecret(env[name]);
  for (const [name, value] of Object.entries(env)) if (name.startsWith('TASKLANE_SECRET_')) redactor.addSecret(value);
  return redactor;
}
