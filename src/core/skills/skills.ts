/**
 * Skills: folders holding a SKILL.md (YAML frontmatter with name and description, then a
 * markdown body). The catalog (names and descriptions) is offered to the model when it starts a
 * task; the bodies of the chosen skills are injected into that task's stable prompt prefix.
 */
import * as fs from 'node:fs/promises';
import * as path from 'node:path';
import { parse as parseYaml } from 'yaml';
import type { Logger } from '../ports';

/** One discovered skill. */
export interface Skill {
  /** Unique name, from the frontmatter (falls back to the folder name). */
  name: string;
  /** When to use it, written for the model. */
  description: string;
  /** The instructions injected into a task that selects the skill. */
  body: string;
  /** The SKILL.md it came from. */
  file: string;
}

const FRONTMATTER = /^---\r?\n([\s\S]*?)\r?\n---\r?\n?/;

/** Parses one SKILL.md; returns undefined (and says why) when it lacks a description. */
export function parseSkill(text: string, file: string, logger?: Logger): Skill | undefined {
  const match = FRONTMATTER.exec(text);
  let meta: Record<string, unknown> = {};
  if (match) {
    try {
      meta = (parseYaml(match[1]) ?? {}) as Record<string, unknown>;
    } catch (error) {
      logger?.warn('TASK', `Skipping skill ${file}: its frontmatter is not valid YAML (${(error as Error).message}).`);
      return undefined;
    }
  }
  const name = typeof meta.name === 'string' && meta.name.trim() ? meta.name.trim() : path.basename(path.dirname(file));
  const description = typeof meta.description === 'string' ? meta.description.trim() : '';
  if (!description) {
    logger?.warn('TASK', `Skipping skill ${file}: add a 'description' to its frontmatter so the model knows when to use it.`);
    return undefined;
  }
  return { name, description, body: text.slice(match ? match[0].length : 0).trim(), file };
}

/**
 * Finds skills in each dir (one subfolder per skill). Earlier dirs win on a name clash, so pass
 * the workspace folders after the built-in one only if built-ins should take precedence.
 */
export async function discoverSkills(dirs: readonly string[], logger?: Logger): Promise<Skill[]> {
  const byName = new Map<string, Skill>();
  for (const dir of dirs) {
    let entries: string[];
    try {
      entries = (await fs.readdir(dir, { withFileTypes: true }))
        .filter((e) => e.isDirectory())
        .map((e) => e.name)
        .sort();
    } catch {
      continue; // A missing .claude/skills is normal.
    }
    for (const entry of entries) {
      const file = path.join(dir, entry, 'SKILL.md');
      const text = await fs.readFile(file, 'utf8').catch(() => undefined);
      if (text === undefined) continue;
      const skill = parseSkill(text, file, logger);
      if (!skill) continue;
      if (byName.has(skill.name)) {
        logger?.warn('TASK', `Skill '${skill.name}' in ${file} is shadowed by ${byName.get(skill.name)?.file}; rename one of them.`);
        continue;
      }
      byName.set(skill.name, skill);
    }
  }
  return [...byName.values()].sort((a, b) => a.name.localeCompare(b.name));
}

/** The catalog shown to the model when it chooses skills: one line per skill, stable order. */
export function skillCatalog(skills: readonly Skill[]): string {
  return skills.map((s) => `- ${s.name}: ${s.description}`).join('\n');
}
