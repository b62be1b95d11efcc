/**
 * The MCP servers a chore declares (chores.yaml `mcp:`): which servers, the exact tools of each,
 * and the secrets each gets by name. A server is the one of that name in `.vscode/mcp.json` (or
 * the person's settings), or one the chore defines with `command`/`args`/`env`. What a declared
 * server runs must not move under the consent: a package that `npx` downloads is named with its
 * exact version, or the chore is refused. The declaration is the allowlist of the chore's tasks
 * (CommandService asks `declaredMcp`): a declared tool runs without a card, any other tool of a
 * declared server is refused naming what is declared.
 */
import * as z from 'zod/v4';
import { definitionHash } from '../mcp/mcpConfig';
import type { McpServerDefinition } from '../mcp/mcpConfig';
import { secretVariable } from './secretScope';
import type { ChoreDefinition, ChoreMcpServer } from './types';

const serverNamePattern = /^[A-Za-z0-9][A-Za-z0-9_.-]{0,62}$/;
const secretNamePattern = /^[A-Za-z0-9][A-Za-z0-9_-]{0,62}$/;

const text = (what: string) => z.string({ error: `${what} must be a string` }).refine((s) => s.trim().length > 0, { error: `${what} must not be empty` });

/** One entry of a chore's `mcp:` as people write it. */
export const choreMcpServerSchema = z.strictObject({
  tools: z.array(text('mcp tools entry'), { error: 'tools must be a list of tool names, e.g. tools: [echo]' }).min(1, {
    error: 'tools needs at least one tool: a chore calls only the tools it lists',
  }),
  secrets: z.array(text('mcp secrets entry').refine((s) => secretNamePattern.test(s), { error: 'a secret name is letters, digits, "_" or "-"' })).optional(),
  command: text('mcp command').optional(),
  args: z.array(z.string({ error: 'args entries must be strings' })).optional(),
  env: z.record(z.string(), z.string({ error: 'env values must be strings' })).optional(),
});

/** `mcp:` as people write it: server name → what the chore may use of it. */
export const choreMcpSchema = z.record(
  z.string().regex(serverNamePattern, { error: 'an MCP server name is letters, digits, ".", "_" or "-" (at most 63)' }),
  choreMcpServerSchema,
);

/** A problem of one declared server, at `path` below `mcp.<server>`. */
export interface ChoreMcpProblem {
  path: (string | number)[];
  message: string;
}

/** What is wrong with a declared server beyond its shape: a definition half given, a secret in env, an unpinned package. */
export function choreMcpProblems(server: string, spec: z.output<typeof choreMcpServerSchema>): ChoreMcpProblem[] {
  const problems: ChoreMcpProblem[] = [];
  if (spec.command === undefined) {
    for (const key of ['args', 'env'] as const)
      if (spec[key] !== undefined)
        problems.push({ path: [key], message: `mcp.${server}.${key} only applies to a server the chore defines: add command, or remove ${key}` });
    return problems;
  }
  for (const key of Object.keys(spec.env ?? {}))
    if (key.toUpperCase().startsWith('TASKLANE_SECRET_'))
      problems.push({
        path: ['env', key],
        message: `mcp.${server}.env: a secret is never written here; name it in secrets: [NAME] and the server gets ${key}`,
      });
  const unpinned = unpinnedPackage(spec.command, spec.args ?? []);
  if (unpinned) problems.push({ path: spec.args?.length ? ['args'] : ['command'], message: `mcp.${server}: ${unpinned}` });
  return problems;
}

/**
 * Why a server's command line downloads a package whose version can move (`npx pkg`,
 * `npx pkg@latest`, `npm exec pkg@^1`), or undefined when it names an exact version or downloads
 * nothing. What a chore was enabled with must be what runs next month.
 */
export function unpinnedPackage(command: string, args: readonly string[]): string | undefined {
  const program = command
    .replace(/^.*[\\/]/, '')
    .replace(/\.(exe|cmd|bat)$/i, '')
    .toLowerCase();
  let rest = [...args];
  if (program === 'npm' || program === 'pnpm' || program === 'yarn') {
    if (!['exec', 'dlx', 'x'].includes(rest[0] ?? '')) return undefined;
    rest = rest.slice(1);
  } else if (!['npx', 'pnpx', 'bunx'].includes(program)) {
    return undefined;
  }
  const packages: string[] = [];
  for (let i = 0; i < rest.length; i++) {
    const arg = rest[i];
    if (arg === '--') {
      if (rest[i + 1] !== undefined && !packages.length) packages.push(rest[i + 1]);
      break;
    }
    if (arg === '-p' || arg === '--package') {
      if (rest[i + 1] !== undefined) packages.push(rest[++i]);
      continue;
    }
    if (arg.startsWith('--package=')) {
      packages.push(arg.slice('--package='.length));
      continue;
    }
    if (arg.startsWith('-')) continue;
    if (!packages.length) packages.push(arg);
    break;
  }
  const line = [command, ...args].join(' ');
  if (!packages.length) return `"${line}" names no package; write the package with its exact version, e.g. npx -y some-server@1.2.3`;
  for (const spec of packages) {
    const at = spec.lastIndexOf('@');
    const name = at > 0 ? spec.slice(0, at) : spec;
    const version = at > 0 ? spec.slice(at + 1) : '';
    if (!/^\d+\.\d+\.\d+(?:[-+][0-9A-Za-z.-]+)?$/.test(version))
      return `"${line}" runs the package ${name} without an exact version${version ? ` ("${version}" can move)` : ''}; pin it, e.g. ${name}@1.2.3, so what runs is what was enabled`;
  }
  return undefined;
}

/** The normalised declaration: tools and secrets as sorted sets, a chore-defined server's parts only when given. */
export function normalizeChoreMcp(spec: z.output<typeof choreMcpSchema>): Record<string, ChoreMcpServer> {
  const out: Record<string, ChoreMcpServer> = {};
  for (const name of Object.keys(spec).sort()) {
    const s = spec[name];
    out[name] = {
      tools: [...new Set(s.tools.map((t) => t.trim()))].sort(),
      ...(s.secrets?.length ? { secrets: [...new Set(s.secrets)].sort() } : {}),
      ...(s.command !== undefined ? { command: s.command, args: s.args ?? [], env: s.env ?? {} } : {}),
    };
  }
  return out;
}

/** `server/tool` of every tool the chore declares, as CommandService names an MCP call. */
export function declaredMcpTools(chore: Pick<ChoreDefinition, 'mcp'>): string[] {
  return Object.entries(chore.mcp ?? {}).flatMap(([server, s]) => s.tools.map((tool) => `${server}/${tool}`));
}

/**
 * The definition a declared server runs with: the chore's own (a stdio server in the workspace
 * folder), or the one of that name among `known` (mcp.json, the person's settings). Undefined when
 * the chore names a server nobody defines.
 */
export function choreServerDefinition(server: string, declared: ChoreMcpServer, known: readonly McpServerDefinition[]): McpServerDefinition | undefined {
  if (declared.command === undefined) return known.find((d) => d.name === server);
  const body = { transport: 'stdio' as const, command: declared.command, args: declared.args ?? [], env: declared.env ?? {} };
  return { name: server, source: 'workspace', ...body, hash: definitionHash({ name: server, ...body }) };
}

/**
 * The variables the MCP server `server` gets for the secrets `chores` declare for it
 * (`TASKLANE_SECRET_<NAME>`, the union over the chores that may run), read through `read` at each
 * start. Throws naming the first missing secret and `howToSet` it; a value is never in a message.
 */
export async function choreServerSecretEnv(
  server: string,
  chores: ReadonlyArray<Pick<ChoreDefinition, 'mcp'>>,
  read: (name: string) => Promise<string | undefined> | string | undefined,
  howToSet: (name: string) => string,
): Promise<Record<string, string>> {
  const names = [...new Set(chores.flatMap((c) => c.mcp?.[server]?.secrets ?? []))].sort();
  const env: Record<string, string> = {};
  for (const name of names) {
    const value = await read(name);
    if (value === undefined || value === '') throw new Error(`the MCP server ${server} needs the secret ${name}: ${howToSet(name)}`);
    env[secretVariable(name)] = value;
  }
  return env;
}

/** The chores of `chores` that declare the MCP server `server`, with the tools each may call of it. */
export function choreGrantsOf(server: string, chores: ReadonlyArray<Pick<ChoreDefinition, 'id' | 'mcp'>>): Array<{ chore: string; tools: string[] }> {
  return chores.flatMap((c) => {
    const declared = c.mcp?.[server];
    return declared ? [{ chore: c.id, tools: declared.tools }] : [];
  });
}
