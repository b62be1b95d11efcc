/**
 * The model providers a person can choose (`tasklane.model.provider`). package.json's enum for the
 * setting is checked against this list by a unit test, so the two cannot drift.
 */
export const PROVIDER_IDS = ['auto', 'vscode-lm', 'anthropic', 'openai', 'openai-compatible'] as const;
export type ProviderId = (typeof PROVIDER_IDS)[number];

export function isProviderId(value: unknown): value is ProviderId {
  return typeof value === 'string' && (PROVIDER_IDS as readonly string[]).includes(value);
}
