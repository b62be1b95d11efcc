/**
 * The sandbox a chore's declared commands and `verify:` checks run in on the command line (issue
 * 38): Linux namespaces made by util-linux's `unshare`, no root needed.
 *  - a user namespace that maps the runner's own user to itself (`--map-current-user`), so the
 *    command keeps its uid and has no capability after it starts: it cannot unmount the /proc
 *    below; `sudo` (passwordless on GitHub's runners) should not raise it either, since the kernel
 *    ignores the setuid bit of a file whose owner the namespace does not map (root is not);
 *  - a pid namespace with its own /proc (`--pid --fork --mount-proc`): the command and what it
 *    starts see only each other, never the CLI, the step's shell or the chore's MCP servers, so no
 *    `/proc/<pid>/environ` or `cmdline` of theirs is readable (an MCP server holds its own secret);
 *  - a network namespace (`--net`) with only a loopback that is down: no connection, no DNS,
 *    unless the chore lists hosts under `network:`. Listing any host turns the network on for its
 *    commands: the namespace cannot tell one host from another, and a proxy that could is not
 *    built. The docs say so (docs/SECURITY.md), and the list is what Enable shows;
 *  - `--kill-child`: nothing outlives the command's `unshare`.
 * `--map-root-user` would be simpler and is not used: root in the namespace can unmount the fresh
 * /proc and see the machine's again (tried: 90 processes instead of 3).
 *
 * Where the namespaces cannot be made (not Linux, util-linux before 2.38, user namespaces off,
 * AppArmor's `restrict_unprivileged_userns` on Ubuntu 23.10+ without a profile for `unshare`), a
 * chore that declares commands or checks fails before its first model call with what to do
 * (`requireSandboxFor`, and the runner refuses each command too): commands never run unsealed.
 */
import { spawnSync } from 'node:child_process';
import * as fs from 'node:fs';

/** Where util-linux puts `unshare`; a fixed path, so the AppArmor profile the workflow installs names it. */
const UNSHARE = ['/usr/bin/unshare', '/bin/unshare'];

/** The `unshare` options, without the network one. */
const ISOLATE = ['--map-current-user', '--pid', '--fork', '--kill-child', '--mount-proc'];

export interface CommandSandbox {
  /** The program and arguments that run `argv` sealed. */
  wrap(argv: readonly string[]): string[];
}

/** A sandbox for a chore: `network` true when it lists hosts (the whole network, see above). */
export function commandSandbox(unshare: string, network: boolean): CommandSandbox {
  const options = [...ISOLATE, ...(network ? [] : ['--net'])];
  return { wrap: (argv) => [unshare, ...options, '--', ...argv] };
}

/** The sandbox of this machine for a chore's commands (made at the first call), or why there is none. */
export function sandboxFor(network: boolean): () => CommandSandbox | { problem: string } {
  return () => {
    const probed = probeSandbox();
    return 'problem' in probed ? probed : commandSandbox(probed.unshare, network);
  };
}

/** The AppArmor profile that lets `unshare` alone make user namespaces (the workflow's step writes it). */
export const APPARMOR_PROFILE = [
  'abi <abi/4.0>,',
  'include <tunables/global>',
  'profile tasklane-unshare /usr/bin/unshare flags=(unconfined) {',
  '  userns,',
  '}',
];

const RESTRICTED = '/proc/sys/kernel/apparmor_restrict_unprivileged_userns';

let probed: { unshare: string } | { problem: string } | undefined;

/**
 * Makes the namespaces once (`true` inside them) and says what is wrong when that fails; the
 * result is kept for the process. `{ unshare }` is the program to wrap commands with.
 */
export function probeSandbox(): { unshare: string } | { problem: string } {
  probed ??= probe();
  return probed;
}

/** The probe itself; the paths are parameters so a test can stand in a refusing `unshare` and a restricted sysctl. */
export function probe(candidates = UNSHARE, restrictedFile = RESTRICTED): { unshare: string } | { problem: string } {
  if (process.platform !== 'linux')
    return {
      problem: `declared commands and verify: checks run only on Linux on the command line (here: ${process.platform}), where they can be sealed from the keys and the network in namespaces. Run the chore on a Linux runner (the generated workflow's ubuntu-latest), or in VS Code, where each command is yours to approve`,
    };
  const unshare = candidates.find((file) => fs.existsSync(file));
  if (!unshare) return { problem: 'declared commands run sealed in namespaces made by `unshare`, which is not installed: install util-linux 2.38 or later' };
  const tried = spawnSync(unshare, [...ISOLATE, '--net', '--', 'true'], {
    encoding: 'utf8',
    timeout: 10_000,
    env: { PATH: process.env.PATH ?? '/usr/bin:/bin' },
  });
  if (tried.status === 0) return { unshare };
  const said = (tried.error?.message ?? tried.stderr ?? '').trim().split('\n')[0] || `exit ${String(tried.status)}`;
  const restricted = readFirst(restrictedFile) === '1';
  return {
    problem: [
      `declared commands run sealed in namespaces (\`unshare --map-current-user --pid --net\`: no network, no sight of other processes), and this machine refused them (${said}).`,
      restricted
        ? `AppArmor restricts user namespaces here (${RESTRICTED} = 1, the default on Ubuntu 23.10 and later, GitHub's ubuntu-24.04 runners included). Regenerate the workflow with \`tasklane chores ci github\`: its step "Let declared commands run sealed" installs an AppArmor profile that lets /usr/bin/unshare alone make them. On your own machine: write ${JSON.stringify(APPARMOR_PROFILE.join('\n'))} to /etc/apparmor.d/tasklane-unshare and run \`sudo apparmor_parser -r /etc/apparmor.d/tasklane-unshare\`.`
        : '`unshare --map-current-user` needs util-linux 2.38 or later and user namespaces turned on (`sysctl user.max_user_namespaces` above 0; inside a container, one allowed to make them).',
      'Commands never run unsealed: remove commands: and verify: from the chore to run it without them.',
    ].join(' '),
  };
}

function readFirst(file: string): string | undefined {
  try {
    return fs.readFileSync(file, 'utf8').trim();
  } catch {
    return undefined;
  }
}

/** A machine that cannot seal commands: `chores run` says what to do and exits 2 (main.ts). */
export class SandboxError extends Error {
  override readonly name = 'SandboxError';
}

/** Refuses a chore that declares commands or checks where the sandbox cannot be made, before any model call. */
export function requireSandboxFor(chore: { id: string; commands?: string[]; verify?: string[] }, probed: () => ReturnType<typeof probe> = probeSandbox): void {
  if (!chore.commands?.length && !chore.verify?.length) return;
  const result = probed();
  if ('problem' in result) throw new SandboxError(`chore ${chore.id}: ${result.problem}`);
}

/**
 * The generated agent job's step before anything of the repository runs, for a chore with commands
 * or checks: on Ubuntu 23.10+ (GitHub's ubuntu-24.04 runners keep the distribution's
 * `apparmor_restrict_unprivileged_userns = 1`; runner-images declined to turn it off) it installs
 * the profile that lets /usr/bin/unshare alone make user namespaces. Least privilege: the sysctl
 * stays on for every other program, where `sysctl -w …=0` (the usual advice) would lift it for all.
 * Elsewhere it does nothing, and the CLI's probe still decides.
 */
export function sandboxStepScript(): string {
  const lines = APPARMOR_PROFILE.map((line) => `'${line}'`).join(' ');
  return [
    `if [ "$(cat ${RESTRICTED} 2>/dev/null)" = 1 ]; then`,
    `  printf '%s\\n' ${lines} | sudo tee /etc/apparmor.d/tasklane-unshare > /dev/null`,
    '  sudo apparmor_parser -r /etc/apparmor.d/tasklane-unshare || { echo "::error::AppArmor refused the profile for /usr/bin/unshare; declared commands cannot run sealed on this runner."; exit 1; }',
    'fi',
  ].join('\n');
}
