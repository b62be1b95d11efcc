/**
 * MCP resources and prompts as context the person attaches to one message (the `@` picker), never
 * injected on their own. Only trusted servers that may run are asked (McpServers.runnable); listing
 * starts a server lazily, as listing its tools does.
 *
 * Prompts with required arguments are offered too: picking one asks for each argument (the host
 * shows an input box per argument, optional ones may be left empty), because a prompt's arguments
 * are usually the whole point of it (a city, a file, an issue number), and leaving those prompts
 * out would hide most of what servers offer. Cancelling any question attaches nothing.
 */
import type { McpServers } from './mcpServers';

/** Largest attachment text from one resource or prompt; longer content is cut with a note. */
export const MCP_CONTEXT_MAX_CHARS = 32 * 1024;

/** One entry of the picker. */
export type McpContextEntry =
  | { kind: 'resource'; server: string; uri: string; label: string; detail: string }
  | {
      kind: 'prompt';
      server: string;
      name: string;
      label: string;
      detail: string;
      arguments: Array<{ name: string; required: boolean; description?: string }>;
    };

/** What becomes the attachment's chip label and text. */
export interface McpContextAttachment {
  label: string;
  text: string;
}

/** Asks the person for one prompt argument; undefined means they cancelled. */
export type AskArgument = (prompt: string, argument: { name: string; required: boolean; description?: string }) => Promise<string | undefined>;

export class McpContext {
  constructor(private readonly servers: Pick<McpServers, 'contextItems' | 'readResource' | 'getPrompt'>) {}

  /** Every resource and prompt of the runnable servers. */
  async entries(): Promise<McpContextEntry[]> {
    const out: McpContextEntry[] = [];
    for (const { server, resources, prompts } of await this.servers.contextItems()) {
      for (const r of resources)
        out.push({ kind: 'resource', server, uri: r.uri, label: `${server}: ${r.name}`, detail: r.description ? `${r.uri} · ${r.description}` : r.uri });
      for (const p of prompts) {
        const args = p.arguments.length ? ` (asks for ${p.arguments.map((a) => `${a.name}${a.required ? '' : '?'}`).join(', ')})` : '';
        out.push({
          kind: 'prompt',
          server,
          name: p.name,
          label: `${server}: ${p.title ?? p.name}`,
          detail: `prompt${args}${p.description ? ` · ${p.description}` : ''}`,
          arguments: p.arguments,
        });
      }
    }
    return out;
  }

  /** The entry's content as an attachment; undefined when the person cancelled an argument. */
  async attach(entry: McpContextEntry, ask: AskArgument): Promise<McpContextAttachment | undefined> {
    if (entry.kind === 'resource') {
      const text = await this.servers.readResource(entry.server, entry.uri);
      return { label: `${entry.server}: ${entry.uri}`, text: bound(text) };
    }
    const args: Record<string, string> = {};
    for (const argument of entry.arguments) {
      const value = await ask(entry.name, argument);
      if (value === undefined) return undefined;
      if (value === '' && !argument.required) continue;
      args[argument.name] = value;
    }
    const text = await this.servers.getPrompt(entry.server, entry.name, args);
    return { label: `${entry.server} prompt ${entry.name}`, text: bound(text) };
  }
}

/** Cut to MCP_CONTEXT_MAX_CHARS, saying so (the model should know it sees part of it). */
export function bound(text: string): string {
  if (text.length <= MCP_CONTEXT_MAX_CHARS) return text;
  const note = `\n… (cut: ${text.length - MCP_CONTEXT_MAX_CHARS} of ${text.length} characters left out)`;
  return `${text.slice(0, MCP_CONTEXT_MAX_CHARS)}${note}`;
}
