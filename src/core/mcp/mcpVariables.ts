/**
 * VS Code's variables in an MCP server definition, resolved as VS Code resolves them in mcp.json:
 * `${workspaceFolder}` (and `${workspaceFolderBasename}`), `${userHome}`, `${pathSeparator}` and
 * `${env:NAME}`, in `command`, `args`, `env`, `cwd`, `url` and `headers`. Resolved when the server
 * starts, never when the file is read: the Trust review and the consent hash show the definition
 * as written (`${env:TOKEN}`, not its value), and an edited variable takes effect at the next start.
 * `${input:ID}` is the value the person gave for the declared input (mcpInputs.ts), asked before
 * this runs; a literal `${input:…}` never reaches a server.
 */
import * as os from 'node:os';
import * as path from 'node:path';
import type { McpServerDefinition } from './mcpConfig';

export interface VariableContext {
  /** The workspace folder (a stdio server's default cwd). */
  workspaceFolder: string;
  /** Reads an environment variable (default process.env). */
  env?: (name: string) => string | undefined;
  /** The values of the definition's `${input:ID}`, by ID (mcpInputs.ts `inputValues`). */
  inputs?: Record<string, string>;
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
      if (name.startsWith('input:')) {
        const value = context.inputs?.[name.slice(6)];
        if (value !== undefined) return value;
        throw new Error(`the MCP server ${definition.name} names ${whole}, which nobody gave a value for; declare it in the "inputs" of mcp.json`);
      }
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
