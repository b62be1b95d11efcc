import * as fs from 'node:fs';
import * as path from 'node:path';

/** One contributed setting, as package.json declares it. */
export interface ManifestSetting {
  type?: string | string[];
  scope?: string;
  default?: unknown;
  minimum?: number;
  maximum?: number;
  enum?: unknown[];
  enumDescriptions?: string[];
  markdownEnumDescriptions?: string[];
  description?: string;
  markdownDescription?: string;
  order?: number;
}

/** One titled section of `contributes.configuration`. */
export interface ManifestSection {
  id?: string;
  title?: string;
  order?: number;
  properties: Record<string, ManifestSetting>;
}

const root = path.resolve(__dirname, '../..');

/** package.json as written: its person-facing strings are `%key%` references into package.nls.json. */
export function rawManifest(): Record<string, unknown> {
  return JSON.parse(fs.readFileSync(path.join(root, 'package.json'), 'utf8')) as Record<string, unknown>;
}

/** The English strings of the manifest (package.nls.json), or another locale's bundle. */
export function manifestStrings(bundle = 'package.nls.json'): Record<string, string> {
  return JSON.parse(fs.readFileSync(path.isAbsolute(bundle) ? bundle : path.join(root, bundle), 'utf8')) as Record<string, string>;
}

/** The `key` of a `%key%` manifest string, or undefined for a literal. */
export function nlsKey(value: string): string | undefined {
  return /^%([^%\s]+)%$/.exec(value)?.[1];
}

/** The manifest as VS Code shows it: every `%key%` string replaced from `strings` (English by default). */
export function localizedManifest(strings: Record<string, string> = manifestStrings()): Record<string, unknown> {
  const resolve = (value: unknown): unknown => {
    if (typeof value === 'string') {
      const key = nlsKey(value);
      return key !== undefined && key in strings ? strings[key] : value;
    }
    if (Array.isArray(value)) return value.map(resolve);
    if (value && typeof value === 'object') return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, resolve(v)]));
    return value;
  };
  return resolve(rawManifest()) as Record<string, unknown>;
}

/** The manifest's configuration sections (an array, or the one object VS Code also accepts), in English. */
export function manifestSections(): ManifestSection[] {
  const configuration = (localizedManifest() as { contributes: { configuration: ManifestSection | ManifestSection[] } }).contributes.configuration;
  return Array.isArray(configuration) ? configuration : [configuration];
}

/** Every contributed setting by key, whichever section holds it. */
export function manifestSettings(): Record<string, ManifestSetting> {
  return Object.assign({}, ...manifestSections().map((section) => section.properties)) as Record<string, ManifestSetting>;
}
