/**
 * VS Code's variables in an MCP server definition, resolved as VS Code resolves them in mcp.json:
 * `${workspaceFolder}` (and `${workspaceFolderBasename}`), `${userHome}`, `${pathSeparator}` and
 * `${env:NAME}`, in `command`, `args`, `env`, `cwd`, `url` and `headers`. Resolved when the server
 * starts, never when the file is read: the Trust review and the consent hash show the definition
 * as written (`${env:TOKEN}`, not its value), and an edited variable takes effect at the next start.
 * `${input:…}` (a value VS Code asks the person for) is refused with what to do instead: this
 * client does not prompt for inputs yet, and a literal `${input:…}` must never reach a server.
 */
import * as os from 'node:os';
import * as path from 'node:path';
import type { McpServerDefinition } from './mcpConfig';

export interface VariableContext {
  /** The workspace folder (a stdio server's default cwd). */
  workspaceFolder: string;
  /** Reads an environment variable (default process.env). */
  env?: (name: string) => string | undefined;
}

const VARIABLE = /\$\{([^}]+)\}/g;

/** `definition` with every variable replaced; throws naming a variable it cannot resolve. */
export function resolveVariables<D extends McpServerDefinition>(definition: D, context: VariableContext): D {
  const env = context.env ?? ((name: string) => process.env[name]);
  const one = (text: string): string =>
    text.replace(VARIABLE, (whole, name: string) => {
      if (name === 'workspaceFolder') return context.workspaceFolder;
      if (name === 'workspaceFolderBasename') return path.basename(context.workspaceFolder);
      if (name === 'userHome') return os.homedir();
      if (name === 'pathSeparator' || name === '/') return path.sep;
      if (name.startsWith('env:')) return env(name.slice(4)) ?? '';
      if (name.startsWith('input:'))
        throw new Error(
          `the MCP server ${definition.name} asks for ${whole}, which Tasklane does not prompt for yet; write the value, or \${env:NAME} with the value in that environment variable`,
        );
      throw new Error(`the MCP server ${definition.name} names the variable ${whole}, which Tasklane does not know`);
    });
  const record = (r: Record<string, string>) => Object.fromEntries(Object.entries(r).map(([k, v]) => [k, one(v)]));
  if (definition.transport === 'stdio')
    return {
      ...definition,
      command: one(definition.command),
      args: definition.args.map(one),
      env: record(definition.env),
      ...(definition.cwd !== undefined ? { cwd: one(definition.cwd) } : {}),
    };
  return { ...definition, url: one(definition.url), headers: record(definition.headers) };
}
