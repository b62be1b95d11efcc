/**
 * Which environment variable may supply a provider's API key (issue #11). A key is sent only to
 * the host the person configured: the variable is used only for the provider it belongs to, and
 * only while that provider talks to its official host. `OPENAI_API_KEY` is never sent to an
 * `openai-compatible` server (its URL can be anything), nor to `openai` with a custom base URL;
 * for those, the person stores a key with "Tasklane: Set API Key" (SecretStorage), which is their
 * explicit choice for the host they configured. Local servers (Ollama, LM Studio, vLLM) need none.
 */

/** The official endpoint of each provider whose key may come from the environment. */
export const OFFICIAL_ORIGINS: Readonly<Record<'openai' | 'anthropic', string>> = {
  openai: 'https://api.openai.com',
  anthropic: 'https://api.anthropic.com',
};

export const ENV_KEY_NAMES: Readonly<Record<'openai' | 'anthropic', string>> = {
  openai: 'OPENAI_API_KEY',
  anthropic: 'ANTHROPIC_API_KEY',
};

/** True when `baseUrl` is empty (the SDK's default) or on the provider's official origin. */
export function isOfficialHost(provider: 'openai' | 'anthropic', baseUrl: string | undefined): boolean {
  const url = baseUrl?.trim();
  if (!url) return true;
  try {
    return new URL(url).origin === OFFICIAL_ORIGINS[provider];
  } catch {
    return false;
  }
}

/** The environment key for `provider` at `baseUrl`, or undefined when none may be used. */
export function envApiKey(provider: string, baseUrl: string | undefined, env: Readonly<Record<string, string | undefined>>): string | undefined {
  if (provider !== 'openai' && provider !== 'anthropic') return undefined;
  if (!isOfficialHost(provider, baseUrl)) return undefined;
  return env[ENV_KEY_NAMES[provider]]?.trim() || undefined;
}
