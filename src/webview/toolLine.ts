/**
 * What a streaming bubble says while the model writes a tool call: a line for people ("Running
 * `npm run build`…", "Reading src/greet.js…"), or nothing. The host sends the call's name and the
 * start of its arguments as the model writes them (partial JSON, already redacted); neither is
 * ever shown as such. Pure: unit-tested with the DOM tests of the thread.
 */
import { word, wordParts } from './words';

/** A line's text: plain words, or a literal shown as code. */
export type ToolLineText = Array<string | { code: string }>;

const MAX = 80;

/** The string value of `field` in partial JSON arguments, as far as it was written (undefined: not yet). */
export function partialField(json: string, field: string): string | undefined {
  const start = new RegExp(`"${field}"\\s*:\\s*"`).exec(json);
  if (!start) return undefined;
  let out = '';
  for (let i = start.index + start[0].length; i < json.length; i++) {
    const c = json[i];
    if (c === '"') break;
    if (c !== '\\') {
      out += c;
      continue;
    }
    const next = json[++i];
    if (next === undefined) break;
    if (next === 'u') {
      const hex = json.slice(i + 1, i + 5);
      if (!/^[0-9a-fA-F]{4}$/.test(hex)) break;
      out += String.fromCharCode(parseInt(hex, 16));
      i += 4;
    } else out += ({ n: ' ', t: ' ', r: '', b: '', f: '' } as Record<string, string>)[next] ?? next;
  }
  return out.replace(/\s+/g, ' ').trim();
}

const clip = (text: string) => (text.length > MAX ? `${text.slice(0, MAX - 1)}…` : text);

/** The line for a tool call being written; undefined: nothing is shown for it. */
export function toolLine(name: string, preview: string): ToolLineText | undefined {
  const field = (key: string) => clip(partialField(preview, key) ?? '');
  const path = field('path');
  switch (name) {
    case 'read_file':
      return [path ? word('toolReading', path) : word('toolReadingAny')];
    case 'list_files':
      return [word('toolListing')];
    case 'search_text': {
      const query = field('query');
      return query ? wordParts('toolSearchingFor', { code: query }) : [word('toolSearching')];
    }
    case 'replace_in_file':
    case 'write_file':
      return [path ? word('toolEditing', path) : word('toolEditingAny')];
    case 'create_file':
      return [path ? word('toolCreating', path) : word('toolCreatingAny')];
    case 'delete_file':
      return [path ? word('toolDeleting', path) : word('toolDeletingAny')];
    case 'rename_file':
      return [path ? word('toolRenaming', path) : word('toolRenamingAny')];
    case 'run_command': {
      const command = field('command');
      return command ? wordParts('toolRunning', { code: command }) : [word('toolRunningAny')];
    }
    case 'run_task': {
      const task = field('name');
      return task ? wordParts('toolRunningTask', { code: task }) : [word('toolRunningTaskAny')];
    }
    case 'task_start': {
      const task = field('name');
      return [task ? word('toolStartingTask', task) : word('toolStartingTaskAny')];
    }
    case 'update_todos':
      return [word('toolTodos')];
    case 'task_end':
      return [word('toolFinishing')];
    case 'wait':
      return [word('toolWaiting')];
    case 'remember':
      return [word('toolRemembering')];
    // The engine's own bookkeeping: nothing to tell the person.
    case 'ignore':
    case 'route_message':
      return undefined;
    default: {
      const mcp = /^mcp_([^_]+)_(.+)$/.exec(name);
      return mcp ? wordParts<string | { code: string }>('toolMcp', { code: mcp[2] ?? '' }, mcp[1] ?? '') : [word('toolWorking')];
    }
  }
}
