/**
 * The `inputs` of mcp.json, as VS Code declares them: values a server definition names as
 * `${input:ID}` that the person gives when the server first starts (`promptString`, with
 * `password: true` for a secret; `pickString`, one of `options`). Asked once and kept (a password
 * in SecretStorage, anything else in the workspace's state), reused at every later start, until the
 * person forgets them. Headless (the command line, CI) nobody can be asked: the value comes from
 * the environment variable `TASKLANE_MCP_INPUT_<ID>` (`envInputs`), else the start is refused
 * naming that variable.
 *
 * The consent hash does not cover the declarations: what runs is the definition, which names
 * `${input:ID}` as written (the Trust review shows it so); the value is the person's own answer.
 */
import * as z from 'zod/v4';

/** One declared input. */
export interface McpInput {
  id: string;
  type: 'promptString' | 'pickString';
  /** What the person is asked (shown as the input box's prompt). */
  description: string;
  /** A secret: typed hidden, kept in SecretStorage, redacted wherever it would be written down. */
  password?: boolean;
  default?: string;
  /** pickString: the values to pick from. */
  options?: string[];
}

/** Gives the value of `input` for `server`: stored, asked, or from the environment. Throws with what to do when there is none. */
export interface McpInputPort {
  value(input: McpInput, server: string): Promise<string>;
}

const ID = /^[A-Za-z0-9_.-]{1,64}$/;
const text = z.string().max(2_000);
/** VS Code's pickString options are strings or `{label, value}`; the value is what a definition receives. */
const option = z.union([text, z.object({ label: text.optional(), value: text }).transform((o) => o.value)]);
const inputSchema = z.discriminatedUnion('type', [
  z.object({
    type: z.literal('promptString'),
    id: z.string().regex(ID),
    description: text.default(''),
    password: z.boolean().optional(),
    default: text.optional(),
  }),
  z.object({
    type: z.literal('pickString'),
    id: z.string().regex(ID),
    description: text.default(''),
    options: z.array(option).min(1).max(200),
    default: text.optional(),
  }),
]);

/** The `${input:ID}` a string names. */
const INPUT_REFERENCE = /\$\{input:([^}]+)\}/g;

/** The declared inputs of mcp.json's top-level `inputs` array; an entry that cannot be read is a problem, the others load. */
export function parseMcpInputs(raw: unknown): { inputs: Map<string, McpInput>; problems: string[] } {
  const inputs = new Map<string, McpInput>();
  const problems: string[] = [];
  if (raw === undefined) return { inputs, problems };
  if (!Array.isArray(raw)) return { inputs, problems: ['inputs: expected an array of {"type", "id", "description"}'] };
  raw.forEach((entry, i) => {
    const parsed = inputSchema.safeParse(entry);
    if (!parsed.success) {
      problems.push(`inputs[${i}]: ${parsed.error.issues.map((issue) => `${issue.path.join('.') || 'entry'}: ${issue.message}`).join('; ')}`);
      return;
    }
    const { data } = parsed;
    inputs.set(data.id, {
      id: data.id,
      type: data.type,
      description: data.description,
      ...('password' in data && data.password ? { password: true } : {}),
      ...(data.default !== undefined ? { default: data.default } : {}),
      ...('options' in data ? { options: data.options } : {}),
    });
  });
  return { inputs, problems };
}

/** The input IDs the strings of a definition name, in order, each once. */
export function inputReferences(strings: readonly string[]): string[] {
  const ids = new Set<string>();
  for (const s of strings) for (const match of s.matchAll(INPUT_REFERENCE)) ids.add(match[1]!);
  return [...ids];
}

/** The environment variable a headless run reads `${input:ID}` from: `TASKLANE_MCP_INPUT_` and the ID in capitals, `_` for the rest. */
export function inputVariable(id: string): string {
  return `TASKLANE_MCP_INPUT_${id.toUpperCase().replace(/[^A-Z0-9]/g, '_')}`;
}

/**
 * Headless inputs: each from its environment variable, set on purpose by whoever runs Tasklane
 * (a Tasklane-specific name, so a repository cannot pick an unrelated variable to be sent).
 */
export function envInputs(env: (name: string) => string | undefined = (name) => process.env[name]): McpInputPort {
  return {
    value: (input, server) => {
      const value = env(inputVariable(input.id));
      if (value !== undefined) return Promise.resolve(value);
      return Promise.reject(
        new Error(
          `the MCP server ${server} needs \${input:${input.id}} (${input.description || input.id}) and nobody can be asked here: set the environment variable ${inputVariable(input.id)}, or start the server once in VS Code, which asks for it`,
        ),
      );
    },
  };
}

/**
 * The value of every input `definition` names, asked one after the other (never two boxes at
 * once); each password is told to `onSecret` (the redactor) before the server could echo it.
 */
export async function inputValues(
  definition: { name: string; inputs?: readonly McpInput[] },
  port: McpInputPort,
  onSecret?: (value: string) => void,
): Promise<Record<string, string>> {
  const values: Record<string, string> = {};
  for (const input of definition.inputs ?? []) {
    const value = (values[input.id] = await port.value(input, definition.name));
    if (input.password && value) onSecret?.(value);
  }
  return values;
}
