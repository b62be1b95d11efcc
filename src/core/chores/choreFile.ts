import { isMap, isScalar, isSeq, LineCounter, parseDocument } from 'yaml';
import type { Document, Node as YamlNode, YAMLError } from 'yaml';
import type * as z from 'zod/v4';
import { choreSpecSchema, normalizeChore } from './choreSchema';
import type { ChoreDefinition, ChoreDiagnostic } from './types';

/** Where users keep their chores, relative to the workspace root. */
export const choresFilePath = '.tasklane/chores.yaml';

/** What loading `.tasklane/chores.yaml` gives: the chores that load, and everything to show as diagnostics. */
export interface ChoresFileResult {
  /** Valid chores, in file order. A chore with any error is not here: it is disabled. */
  chores: ChoreDefinition[];
  /** Ids of chores that failed validation (when they had a readable id). */
  disabled: string[];
  /** Errors and warnings, positioned for VS Code diagnostics. */
  diagnostics: ChoreDiagnostic[];
}

type Path = (string | number)[];

/**
 * Parses and validates chores.yaml. Never throws: a YAML syntax error inside one chore disables that
 * chore, a schema error disables its chore, and every other chore still loads.
 */
export function parseChoresFile(text: string): ChoresFileResult {
  const lineCounter = new LineCounter();
  const doc = parseDocument(text, { lineCounter, prettyErrors: false, uniqueKeys: true });
  const at = (start: number, end: number, message: string, severity: ChoreDiagnostic['severity'], choreId?: string): ChoreDiagnostic => {
    const from = lineCounter.linePos(start);
    // A zero-width range is invisible in the editor: underline at least one character.
    const to = lineCounter.linePos(Math.max(end, start + 1));
    return { line: from.line, column: from.col, endLine: to.line, endColumn: to.col, message, severity, ...(choreId ? { choreId } : {}) };
  };
  const diagnostics: ChoreDiagnostic[] = [];
  const yamlProblems: Array<{ offset: number; diagnostic: ChoreDiagnostic }> = [];
  const addYamlProblem = (problem: YAMLError, severity: ChoreDiagnostic['severity']) => {
    const message = problem.message.split('\n')[0].replace(/ at line \d+, column \d+:?$/, '');
    yamlProblems.push({ offset: problem.pos[0], diagnostic: at(problem.pos[0], problem.pos[1], `YAML: ${message}`, severity) });
  };
  doc.errors.forEach((e) => addYamlProblem(e, 'error'));
  doc.warnings.forEach((w) => addYamlProblem(w, 'warning'));

  const result: ChoresFileResult = { chores: [], disabled: [], diagnostics };
  const root = doc.contents;
  const seq = isMap(root) ? root.get('chores', true) : undefined;
  if (!isMap(root) || !isSeq(seq)) {
    diagnostics.push(...yamlProblems.map((p) => p.diagnostic));
    const range = (isMap(root) && findKey(root, 'chores')?.range) || root?.range || [0, 0];
    if (!text.trim()) return result; // An empty file is simply "no chores yet".
    if (doc.errors.length === 0)
      diagnostics.push(at(range[0], range[1], 'chores.yaml must have a top-level "chores:" list, e.g.\nchores:\n  - id: nightly-changelog', 'error'));
    return result;
  }
  if (isMap(root)) {
    for (const pair of root.items) {
      const key = pair.key as YamlNode | null;
      if (isScalar(key) && key.value !== 'chores' && key.range)
        diagnostics.push(at(key.range[0], key.range[1], `unknown top-level key "${String(key.value)}"; only "chores" is read`, 'warning'));
    }
  }

  const seen = new Map<string, number>();
  const claimed = new Set<number>();
  seq.items.forEach((item, index) => {
    const node = item as YamlNode;
    const range = node?.range ?? seq.range ?? [0, 0, 0];
    const idNode = isMap(node) ? node.get('id', true) : undefined;
    const choreId = isScalar(idNode) && typeof idNode.value === 'string' ? idNode.value : undefined;
    const own = yamlProblems.filter((p, i) => !claimed.has(i) && p.offset >= range[0] && p.offset < range[2]);
    yamlProblems.forEach((p, i) => {
      if (p.offset >= range[0] && p.offset < range[2]) claimed.add(i);
    });
    const errors: ChoreDiagnostic[] = own.map((p) => ({ ...p.diagnostic, ...(choreId ? { choreId } : {}) }));
    const locate = (path: Path, keyOnly = false): [number, number] => locateNode(doc, node, ['chores', index, ...path], keyOnly);

    const raw: unknown = node ? (node as YamlNode).toJSON() : undefined;
    const parsed = choreSpecSchema.safeParse(raw);
    if (!parsed.success) {
      for (const issue of parsed.error.issues) errors.push(issueDiagnostic(issue, raw, locate, at, choreId));
    }
    if (choreId && seen.has(choreId)) {
      const [s, e] = locate(['id']);
      errors.push(at(s, e, `duplicate chore id "${choreId}" (first used by chore #${seen.get(choreId)! + 1}); ids must be unique`, 'error', choreId));
    } else if (choreId) {
      seen.set(choreId, index);
    }
    if (errors.some((d) => d.severity === 'error') || !parsed.success) {
      diagnostics.push(...errors);
      // A duplicate of a chore that loaded is not "disabled": the first one runs.
      if (choreId && !result.chores.some((c) => c.id === choreId)) result.disabled.push(choreId);
      return;
    }
    diagnostics.push(...errors);
    const { definition, clamped } = normalizeChore(parsed.data);
    for (const notice of clamped) {
      const [s, e] = locate(notice.path);
      diagnostics.push(at(s, e, notice.message, 'warning', definition.id));
    }
    result.chores.push(definition);
  });
  diagnostics.push(...yamlProblems.filter((_, i) => !claimed.has(i)).map((p) => p.diagnostic));
  return result;
}

function issueDiagnostic(
  issue: z.core.$ZodIssue,
  raw: unknown,
  locate: (path: Path, keyOnly?: boolean) => [number, number],
  at: (start: number, end: number, message: string, severity: ChoreDiagnostic['severity'], choreId?: string) => ChoreDiagnostic,
  choreId: string | undefined,
): ChoreDiagnostic {
  const path = issue.path.filter((p): p is string | number => typeof p !== 'symbol');
  if (issue.code === 'unrecognized_keys') {
    const key = issue.keys[0];
    const [s, e] = locate([...path, key], true);
    const where = path.length ? ` in ${path.join('.')}` : '';
    return at(s, e, `unknown key "${issue.keys.join('", "')}"${where}; check the spelling against the chores.yaml format in the README`, 'error', choreId);
  }
  const [s, e] = locate(path);
  const label = path.join('.');
  let message = issue.message;
  if (issue.code === 'invalid_type' && valueAt(raw, path) === undefined) message = `${label || 'chore'} is required`;
  else if (issue.code !== 'custom' && label && !message.includes(label)) message = `${label}: ${message}`;
  return at(s, e, message, 'error', choreId);
}

function valueAt(raw: unknown, path: Path): unknown {
  let value = raw;
  for (const key of path) value = value !== null && typeof value === 'object' ? (value as Record<string | number, unknown>)[key] : undefined;
  return value;
}

/**
 * The source range of the node at `path`. When the node is missing (a required key left out), the
 * nearest existing ancestor's key is used so the squiggle lands where the key belongs.
 */
function locateNode(doc: Document, chore: YamlNode | null, path: Path, keyOnly: boolean): [number, number] {
  for (let n = path.length; n >= 2; n--) {
    const parentPath = path.slice(0, n - 1);
    const last = path[n - 1];
    const parent = doc.getIn(parentPath, true) as YamlNode | undefined;
    if (isMap(parent) && typeof last === 'string') {
      const pair = parent.items.find((p) => isScalar(p.key) && p.key.value === last);
      if (pair) {
        const key = pair.key as YamlNode;
        const value = pair.value as YamlNode | null;
        if (!keyOnly && value?.range) return [value.range[0], value.range[1]];
        if (key.range) return [key.range[0], key.range[1]];
      }
    } else if (isSeq(parent) && typeof last === 'number') {
      const item = parent.items[last] as YamlNode | undefined;
      if (item?.range) return [item.range[0], item.range[1]];
    }
    // Missing: fall back to the key that holds the parent (one level up), or to the chore itself.
    if (n - 1 <= 2) break;
    const holder = locateKey(doc, parentPath);
    if (holder) return holder;
  }
  // The chore's first key (usually `id:`), so the error sits on the line that starts the chore.
  if (isMap(chore) && chore.items[0]) {
    const key = chore.items[0].key as YamlNode;
    if (key.range) return [key.range[0], key.range[1]];
  }
  const range = chore?.range ?? [0, 0];
  return [range[0], range[1]];
}

function locateKey(doc: Document, path: Path): [number, number] | undefined {
  const parent = doc.getIn(path.slice(0, -1), true) as YamlNode | undefined;
  const last = path[path.length - 1];
  if (!isMap(parent)) return undefined;
  const key = findKey(parent, String(last));
  return key?.range ? [key.range[0], key.range[1]] : undefined;
}

function findKey(map: { items: Array<{ key: unknown }> }, name: string): YamlNode | undefined {
  const pair = map.items.find((p) => isScalar(p.key) && p.key.value === name);
  return pair?.key as YamlNode | undefined;
}

/**
 * The note that the chores' cost will be estimated (their model has no known price; see
 * chorePreview.ts `costEstimateNote`), as a warning on the file's `chores:` key: the editor shows
 * it where the budgets are written, beside the other problems. Undefined when there is no note or
 * no chore.
 */
export function costNoteDiagnostic(text: string, loaded: Pick<ChoresFileResult, 'chores'>, note: string | undefined): ChoreDiagnostic | undefined {
  if (!note || !loaded.chores.length) return undefined;
  const lineCounter = new LineCounter();
  const doc = parseDocument(text, { lineCounter });
  const key = isMap(doc.contents) ? findKey(doc.contents, 'chores') : undefined;
  const [start, end] = key?.range ?? [0, 0];
  const from = lineCounter.linePos(start);
  const to = lineCounter.linePos(Math.max(end, start + 1));
  return { line: from.line, column: from.col, endLine: to.line, endColumn: to.col, message: `Chore cost will be estimated: ${note}`, severity: 'warning' };
}
