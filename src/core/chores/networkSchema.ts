/**
 * The `network:` key of a chore (issue 38): the hosts its declared commands and `verify:` checks
 * may reach, e.g. `network: ["registry.npmjs.org"]`. Without it they run with no network at all
 * (cli/commandSandbox.ts: a network namespace with nothing in it, no DNS either).
 *
 * Decision: the list is not enforced host by host. A network namespace is all or nothing, and a
 * filtering proxy is not built; so listing any host gives the chore's commands the whole network,
 * which Enable shows as the list written and the docs say plainly (docs/SECURITY.md). The names are
 * still required, not a `network: true`, so that what the person consents to says what the chore
 * means to reach, and a later allowlist can hold it to that without a new key. Part of the
 * consent hash like every key; it changes nothing for MCP servers, which run outside the sandbox.
 */
import * as z from 'zod/v4';

/** Most hosts a chore lists. */
const MAX_HOSTS = 20;

/** A host name as DNS writes it (letters, digits, `-`, dots), optionally `*.` for its subdomains; no scheme, port or path. */
const HOST = /^(\*\.)?([a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?\.)*[a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?$/;

export const networkKeys = {
  network: z
    .array(
      z.string({ error: 'network entry must be a string' }).refine((s) => HOST.test(s.trim().toLowerCase()), {
        error: (issue) => `network entry "${String(issue.input)}" is not a host name (e.g. registry.npmjs.org; no https:// or path)`,
      }),
    )
    .min(1, { error: 'network needs at least one host, e.g. network: ["registry.npmjs.org"]; without the key commands have no network' })
    .max(MAX_HOSTS, { error: `network lists more than ${MAX_HOSTS} hosts` })
    .optional(),
};

/** What is wrong with a chore's network list, each at its path relative to the chore. */
export function networkProblems(c: { network?: string[] | undefined; commands?: string[] | undefined; verify?: string[] | undefined }): Array<{
  path: (string | number)[];
  message: string;
}> {
  if (c.network === undefined || c.commands?.length || c.verify?.length) return [];
  return [{ path: ['network'], message: 'network only applies to the commands: and verify: checks a chore declares; remove it or declare them' }];
}

/** The list as the definition keeps it (lower case, each once, in order); nothing when not declared, so other chores' hashes are unchanged. */
export function normalizeNetwork(spec: { network?: string[] | undefined }): { network?: string[] } {
  return spec.network?.length ? { network: [...new Set(spec.network.map((h) => h.trim().toLowerCase()))] } : {};
}
