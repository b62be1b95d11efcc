import { Document, isMap, isScalar, isSeq, LineCounter, parseDocument } from 'yaml';
import type { Node as YamlNode } from 'yaml';
import { choreSpecSchema } from './choreSchema';
import type { ChoreSpec } from './choreSchema';

/** Key order of a chore as docs/DESIGN.md §7 documents it, so generated entries read like hand-written ones. */
const keyOrder = [
  'id',
  'name',
  'trigger',
  'prompt',
  'actionSets',
  'commands',
  'verify',
  'verifyRounds',
  'unsafe',
  'mcp',
  'skills',
  'budget',
  'successWhen',
  'terminalStatuses',
  'onFailure',
  'maxRetries',
  'retryDelaySeconds',
  'concurrency',
  'queueMaxWaitSeconds',
  'drift',
  'escalate',
  'actors',
  'outputs',
];
/** Small maps that read best on one line, as in the documented example. */
const flowKeys = new Set(['budget', 'actionSets', 'commands', 'verify', 'skills', 'task', 'webhook', 'slack', 'email', 'actors']);

/**
 * One chore as a YAML list entry (`- id: …`, indented for a place under `chores:` at column 0).
 * Throws with the schema's message when the spec is not a valid chore, so the guided flow can
 * never write a chore the loader would then disable.
 */
export function serializeChore(spec: ChoreSpec, indent = 2): string {
  const checked = choreSpecSchema.safeParse(spec);
  if (!checked.success) {
    const first = checked.error.issues[0];
    throw new Error(`cannot write chore "${String(spec.id)}": ${first.path.join('.') || 'chore'}: ${first.message}; fix that field and try again`);
  }
  const ordered: Record<string, unknown> = {};
  for (const key of keyOrder) if ((spec as Record<string, unknown>)[key] !== undefined) ordered[key] = (spec as Record<string, unknown>)[key];
  const doc = new Document([ordered]);
  const seq = doc.contents;
  if (isSeq(seq)) {
    const chore = seq.items[0];
    if (isMap(chore)) {
      for (const pair of chore.items) {
        const key = String((pair.key as { value?: unknown })?.value ?? pair.key);
        const value = pair.value as YamlNode | null;
        if (flowKeys.has(key) && (isMap(value) || isSeq(value))) value.flow = true;
        if ((key === 'trigger' || key === 'escalate' || key === 'outputs' || key === 'mcp') && isMap(value)) {
          for (const inner of value.items) {
            const innerValue = inner.value as YamlNode | null;
            if (isMap(innerValue) || isSeq(innerValue)) innerValue.flow = true;
            // Quoted, a cron pattern can never be read as an alias or a number.
            if (isScalar(innerValue) && (inner.key as { value?: unknown })?.value === 'cron') innerValue.type = 'QUOTE_DOUBLE';
          }
        }
      }
    }
  }
  const text = doc.toString({ lineWidth: 0, blockQuote: 'literal', indentSeq: true });
  const pad = ' '.repeat(indent);
  return text
    .split('\n')
    .map((line) => (line ? pad + line : line))
    .join('\n');
}

/**
 * Appends a chore to the text of chores.yaml without reformatting what is already there: the new
 * entry is inserted as text after the last chore, so the user's comments, blank lines, quoting and
 * ordering survive byte for byte. Throws when the id is already used.
 */
export function appendChore(yamlText: string, spec: ChoreSpec): string {
  if (!yamlText.trim()) return `chores:\n${serializeChore(spec)}`;
  const lineCounter = new LineCounter();
  const doc = parseDocument(yamlText, { lineCounter });
  if (doc.errors.length) {
    throw new Error(`.tasklane/chores.yaml has a YAML error (${doc.errors[0].message.split('\n')[0]}); fix it before adding a chore`);
  }
  const root = doc.contents;
  if (root === null) return `${ensureTrailingNewline(yamlText)}chores:\n${serializeChore(spec)}`; // comments only
  if (!isMap(root)) throw new Error('.tasklane/chores.yaml does not start with "chores:"; add a top-level chores: list first');
  const existing = root.get('chores', true) as YamlNode | null | undefined;
  if (!root.has('chores')) return `${ensureTrailingNewline(yamlText)}chores:\n${serializeChore(spec)}`;
  if (
    existing === null ||
    existing === undefined ||
    (isScalar(existing) && existing.value === null) ||
    (isSeq(existing) && existing.flow && existing.items.length === 0)
  ) {
    // `chores:` with nothing (or an empty `[]`) after it: put the list right after the key.
    const pair = root.items.find((p) => isScalar(p.key) && p.key.value === 'chores');
    const keyEnd = (pair?.key as YamlNode).range![1];
    const valueRange = existing?.range;
    const lineEnd = yamlText.indexOf('\n', valueRange ? valueRange[1] : keyEnd);
    const cut = lineEnd === -1 ? yamlText.length : lineEnd;
    const head = valueRange && valueRange[1] > valueRange[0] ? yamlText.slice(0, valueRange[0]).trimEnd() : yamlText.slice(0, cut);
    return `${head}\n${serializeChore(spec)}${yamlText.slice(cut + (lineEnd === -1 ? 0 : 1))}`;
  }
  if (!isSeq(existing)) throw new Error('"chores:" in .tasklane/chores.yaml is not a list; each chore starts with "- id:"');
  const ids = existing.items.map((item) => (isMap(item) ? item.get('id') : undefined));
  if (ids.includes(spec.id)) throw new Error(`a chore with id "${spec.id}" already exists; pick another id`);
  if (existing.flow) throw new Error('"chores:" is written as a [flow] list; rewrite it as a block list (one "- id:" per chore) to add chores');
  const [start, valueEnd] = existing.range ?? [yamlText.length, yamlText.length];
  const indent = lineCounter.linePos(start).col - 1;
  const insertAt = valueEnd;
  const before = yamlText.slice(0, insertAt);
  const glue = before.endsWith('\n') ? '' : '\n';
  return `${before}${glue}${serializeChore(spec, indent)}${yamlText.slice(insertAt)}`;
}

function ensureTrailingNewline(text: string): string {
  return text.endsWith('\n') ? text : `${text}\n`;
}
