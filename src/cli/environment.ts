/**
 * What the headless runner takes from its environment: the model (TASKLANE_MODEL_PROVIDER,
 * TASKLANE_MODEL_BASE_URL, TASKLANE_MODEL_ID and the provider's usual key variable) and chore
 * secrets (TASKLANE_SECRET_<NAME>). On a CI machine the environment is the person's configuration
 * (repository secrets and variables), so unlike in VS Code, where a repository's settings must
 * not steer keys, the base URL and key given here are used as given.
 */
import { createModelClient } from '../core/model/createModelClient';
import type { SdkProvider } from '../core/model/createModelClient';
import type { ModelClient } from '../core/model/types';
import type { Logger } from '../core/ports';
import { MODEL_KEY_VARIABLES, Redactor } from '../core/security/redact';

type Env = Readonly<Record<string, string | undefined>>;

const PROVIDERS: readonly SdkProvider[] = ['anthropic', 'openai', 'openai-compatible'];

/** Thrown for a configuration the run cannot start with; exit code 2. */
export class UsageError extends Error {
  override readonly name = 'UsageError';
}

/** The model client the environment describes; throws UsageError when it describes none. */
export function modelFromEnv(env: Env, logger: Logger): () => Promise<ModelClient> {
  const provider = (env.TASKLANE_MODEL_PROVIDER?.trim() || (env.ANTHROPIC_API_KEY ? 'anthropic' : env.OPENAI_API_KEY ? 'openai' : '')) as SdkProvider | '';
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

/** The environment variable a chore secret is read from: `team-slack` → TASKLANE_SECRET_TEAM_SLACK. */
export function secretVariable(name: string): string {
  return `TASKLANE_SECRET_${name.toUpperCase().replace(/[^A-Z0-9]/g, '_')}`;
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
