/**
 * The CI settings a person consented to when generating the workflow: the model provider, id and
 * endpoint (where the model key is sent), the prices the caps count with, and where the CLI is
 * fetched from. `chores ci github` writes them into the workflow's `env:`; `chores ci verify`
 * compares the workflow with them, never with the workflow's own `env:` (security-2026-12c
 * finding 4: an edited base URL, CLI location or price passed verify because it was read from the
 * file under review).
 *
 * Where they live: `.tasklane/ci-settings.json`, committed beside chores.yaml (`chores ci settings`
 * prints it from the environment). A model on CI cannot write it: `.tasklane/**` is a path a
 * proposed pull request may not touch unless the chore lists it (patchRules.ts), and a person's
 * change to it is a small, readable diff in review. Without the file, both commands take the
 * settings from their environment (TASKLANE_MODEL_*, TASKLANE_CLI_URL): a check running verify
 * then sets them as repository variables.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import { pricesVariable, UsageError } from './environment';

/** The settings file, relative to the workspace. */
export const CI_SETTINGS_FILE = '.tasklane/ci-settings.json';

/** What `ci github` writes into the workflow's env besides the chores; every field optional. */
export interface CiSettings {
  provider?: string;
  id?: string;
  baseUrl?: string;
  /** TASKLANE_MODEL_PRICES as text (JSON). */
  prices?: string;
  cliUrl?: string;
}

const fields: Array<[keyof CiSettings, string]> = [
  ['provider', 'TASKLANE_MODEL_PROVIDER'],
  ['id', 'TASKLANE_MODEL_ID'],
  ['baseUrl', 'TASKLANE_MODEL_BASE_URL'],
  ['prices', pricesVariable],
  ['cliUrl', 'TASKLANE_CLI_URL'],
];

/** The settings the environment sets (empty values left out). */
export function settingsFromEnv(env: Readonly<Record<string, string | undefined>>): CiSettings {
  const out: CiSettings = {};
  for (const [key, variable] of fields) {
    const value = env[variable]?.trim();
    if (value) out[key] = value;
  }
  return out;
}

/** The committed settings, or undefined when there is no file; a damaged file is a usage error. */
export function readCiSettings(workspace: string): CiSettings | undefined {
  const file = path.join(workspace, CI_SETTINGS_FILE);
  if (!fs.existsSync(file)) return undefined;
  let parsed: unknown;
  try {
    parsed = JSON.parse(fs.readFileSync(file, 'utf8'));
  } catch (error) {
    throw new UsageError(
      `${CI_SETTINGS_FILE} is not JSON (${error instanceof Error ? error.message : String(error)}); regenerate it with \`tasklane chores ci settings > ${CI_SETTINGS_FILE}\`.`,
    );
  }
  if (!parsed || typeof parsed !== 'object' || Array.isArray(parsed)) throw new UsageError(`${CI_SETTINGS_FILE} must be a JSON object.`);
  const out: CiSettings = {};
  for (const [key, value] of Object.entries(parsed as Record<string, unknown>)) {
    if (!fields.some(([k]) => k === key)) throw new UsageError(`${CI_SETTINGS_FILE}: unknown field "${key}" (known: ${fields.map(([k]) => k).join(', ')}).`);
    if (typeof value !== 'string') throw new UsageError(`${CI_SETTINGS_FILE}: "${key}" must be a string.`);
    out[key as keyof CiSettings] = value;
  }
  return out;
}

/**
 * The settings both commands use: the committed file when there is one (the environment may not
 * contradict it: a change goes through the file), else the environment.
 */
export function consentedSettings(
  workspace: string,
  env: Readonly<Record<string, string | undefined>>,
): { settings: CiSettings; from: 'file' | 'environment' } {
  const committed = readCiSettings(workspace);
  const fromEnv = settingsFromEnv(env);
  if (!committed) return { settings: fromEnv, from: 'environment' };
  for (const [key, variable] of fields)
    if (fromEnv[key] !== undefined && fromEnv[key] !== committed[key])
      throw new UsageError(
        `${variable} is set to a value that differs from ${key} in ${CI_SETTINGS_FILE}: change the committed settings (\`tasklane chores ci settings > ${CI_SETTINGS_FILE}\`, reviewed like any change) rather than override them.`,
      );
  return { settings: committed, from: 'file' };
}

/** The file's text for `chores ci settings`. */
export function ciSettingsText(settings: CiSettings): string {
  return `${JSON.stringify(settings, null, 2)}\n`;
}

/** One line a reviewer reads on every verify: where the key goes, what is installed, the prices. */
export function describeSettings(settings: CiSettings, cli: { url: string; digest: string }): string {
  const endpoint = settings.baseUrl ?? `${settings.provider ?? 'the provider'}'s default endpoint`;
  return `It sends the model key to ${endpoint} (model ${settings.id ?? 'unset'}), installs the CLI from ${cli.url} (content sha256 ${cli.digest.slice(0, 12)}…), prices: ${settings.prices ?? "Tasklane's known prices"}.`;
}
