/**
 * What a streaming bubble says while the model writes a tool call: a line for people ("Running
 * `npm run build`…", "Reading src/greet.js…"), or nothing. The host sends the call's name and the
 * start of its arguments as the model writes them (partial JSON, already redacted); neither is
 * ever shown as such. Pure: unit-tested with the DOM tests of the thread.
 */

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
      return [path ? `Reading ${path}…` : 'Reading a file…'];
    case 'list_files':
      return ['Listing files…'];
    case 'search_text': {
      const query = field('query');
      return query ? ['Searching for ', { code: query }, '…'] : ['Searching…'];
    }
    case 'replace_in_file':
    case 'write_file':
      return [path ? `Writing an edit to ${path}…` : 'Writing an edit…'];
    case 'create_file':
      return [path ? `Writing ${path}…` : 'Writing a new file…'];
    case 'delete_file':
      return [path ? `Proposing to delete ${path}…` : 'Proposing to delete a file…'];
    case 'rename_file':
      return [path ? `Proposing to rename ${path}…` : 'Proposing to rename a file…'];
    case 'run_command': {
      const command = field('command');
      return command ? ['Running ', { code: command }, '…'] : ['Preparing a command…'];
    }
    case 'run_task': {
      const task = field('name');
      return task ? ['Running task ', { code: task }, '…'] : ['Preparing a task run…'];
    }
    case 'task_start': {
      const task = field('name');
      return [task ? `Starting task “${task}”…` : 'Starting a task…'];
    }
    case 'update_todos':
      return ['Updating the todo list…'];
    case 'task_end':
      return ['Finishing…'];
    case 'wait':
      return ['Planning a wait…'];
    case 'remember':
      return ['Writing a memory note…'];
    // The engine's own bookkeeping: nothing to tell the person.
    case 'ignore':
    case 'route_message':
      return undefined;
    default: {
      const mcp = /^mcp_([^_]+)_(.+)$/.exec(name);
      return mcp ? ['Using ', { code: mcp[2] ?? '' }, ` from ${mcp[1]}…`] : ['Working…'];
    }
  }
}
