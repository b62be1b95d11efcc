/**
 * The two jobs of a chore on CI (issue 24, security review 2026-12b finding 8): the agent
 * proposes, a separate job disposes.
 *
 *  - `chore-<id>` (the agent job) holds `contents: read` only, checks out with
 *    `persist-credentials: false`, has no GITHUB_TOKEN in any environment and no cache. It installs
 *    the CLI pinned by content (cliArtifact.ts) and runs `tasklane chores run <id> --expect-hash <h>
 *    --out tasklane-out`: the hash binds the job to the definition that was reviewed when the
 *    workflow was generated. The model key, the escalation secrets, those its MCP servers name and
 *    the gate token are handed over in files by the step before (sealedSecrets.ts), so no process
 *    a declared command can read holds them in its environment; the CLI starts the servers. The repository is checked out into `repo/` (and, for pull-request events, the default
 *    branch into `base/`, where chores.yaml and instruction files are read with `--chores-from`),
 *    so `tasklane-out` is never a path the repository ships. It uploads `tasklane-out` (result
 *    manifest, patch, trace).
 *  - `apply-<id>` runs only when the agent job uploaded something, with only the write scopes the
 *    chore's `outputs:` need (plus `checks: write` for the check run of every fire), and runs
 *    `tasklane chores apply --from tasklane-out`, which validates the manifest before writing.
 *
 * Nothing of an event reaches a `run:` script: the CLI reads `$GITHUB_EVENT_PATH` itself. The
 * only `${{ }}` in a script-free place are secrets, the token of the apply step, the default
 * branch name as a checkout ref, and numbers in concurrency keys.
 */
import type { ChoreOutputs } from '../core/chores/githubTypes';
import { INSTALL_CLI_SCRIPT } from './cliArtifact';
import { handOverScript, SECRETS_DIR } from './sealedSecrets';
import { sandboxStepScript } from './commandSandbox';
import { secretVariable } from '../core/chores/secretScope';
import { readsEarlierFires } from './fireBudget';
import { concurrencyGroup, isPullRequestEvent, jobCondition } from './workflowTriggers';
import type { CiChore } from './workflowTriggers';
import { ACTIONS, choreIdText, quoted, uses, WorkflowError } from './workflowText';
import { continueSteps, continuesOnCi, resumeArgument } from './workflowContinue';
import { parseCommandLine } from '../core/approval/commands/commandLine';

/** Where the agent's result goes and the apply job reads it (outside every checkout). */
export const OUT_DIR = 'tasklane-out';
/** Minutes added to `maxSeconds` for checkout, install and upload; the run stops itself at maxSeconds. */
export const TIMEOUT_MARGIN_MINUTES = 10;
const NODE_VERSION = '22';

/** What both jobs need besides the chore. */
export interface JobSettings {
  /** The chore's definition hash (core/consent/definitionHash.ts), checked by `--expect-hash`. */
  hash: string;
}

/** The agent job's id for a chore. */
export function agentJobId(choreId: string): string {
  return `chore-${choreIdText(choreId)}`;
}

/** The apply job's id for a chore. */
export function applyJobId(choreId: string): string {
  return `apply-${choreIdText(choreId)}`;
}

/** Whether a fire can be about a pull request, whose changed files it is told (a comment or a failed run on one too). */
function aboutPullRequests(trigger: CiChore['trigger']): boolean {
  return isPullRequestEvent(trigger) || trigger.event === 'issue_comment' || trigger.event === 'workflow_run';
}

/** The agent job's lines (indented under `jobs:`). */
export function agentJob(c: CiChore, settings: JobSettings): string[] {
  const { chore, trigger } = c;
  const id = choreIdText(chore.id);
  if (!/^[0-9a-f]{64}$/.test(settings.hash)) throw new WorkflowError(`chore ${id}: its definition hash is not a sha256.`);
  // A comment on a pull request whose chore commits to it works on the pull request's code (a
  // fork's is found and narrowed by the CLI before the model runs: ciRun.ts), with chores.yaml
  // from the default branch as for pull request events.
  const commentOnPull = trigger.event === 'issue_comment' && Boolean(chore.outputs?.pushToPullRequest);
  const pullRequest = isPullRequestEvent(trigger) || commentOnPull;
  // A fork's read-only review gets the model key and nothing else (GitHub gives a fork's run no
  // secrets unless the repository's settings say otherwise, and never a writing token).
  const escalation =
    trigger.forks === 'read-only' || !chore.escalate
      ? []
      : [chore.escalate.slack?.urlSecret, chore.escalate.webhook?.urlSecret, chore.escalate.email?.smtpSecret].filter((s): s is string => Boolean(s));
  // The secrets its MCP servers name: the CLI gives each only to the server naming it. The servers
  // start inside this step (choreMcpServers.ts) and need no permission of the job's token.
  const mcpSecrets = trigger.forks === 'read-only' ? [] : Object.values(chore.mcp ?? {}).flatMap((s) => s.secrets ?? []);
  const secrets = [...new Set([...escalation, ...mcpSecrets].map(secretVariable))];
  // The actor gate (cli/actorGate.ts) asks GitHub for the sender's role before any model call, and the
  // budgets across fires read the fire ledger (fireLedger.ts): with the job's own token, read-only (the job has
  // no write scope), in this one step's environment; declared commands never inherit it
  // (commandRunner.ts passes an allowlist) and the redactor knows it.
  const gated = trigger.event !== 'schedule';
  const readsChecks = readsEarlierFires(chore);
  const resume = resumeArgument(c);
  const command = [
    `tasklane chores run ${id} --workspace repo --expect-hash ${settings.hash} --out ${OUT_DIR}`,
    ...(pullRequest ? ['--chores-from base'] : []),
    `--secrets-dir "${SECRETS_DIR}"`,
    ...resume.words,
  ].join(' ');
  // Every secret of the run, handed over in files by a step of its own (sealedSecrets.ts): the run
  // step, and so every command it starts, has none in any ancestor's environment.
  const handed: Array<[string, string]> = [
    ['ANTHROPIC_API_KEY', '${{ secrets.ANTHROPIC_API_KEY }}'],
    ['OPENAI_API_KEY', '${{ secrets.OPENAI_API_KEY }}'],
    ...secrets.map((variable): [string, string] => [variable, `\${{ secrets.${variable} }}`]),
    ...(gated || readsChecks ? [['TASKLANE_GATE_TOKEN', '${{ github.token }}'] as [string, string]] : []),
  ];
  return [
    `  ${agentJobId(id)}:`,
    `    if: ${JSON.stringify(jobCondition(c))}`,
    '    runs-on: ubuntu-latest',
    `    timeout-minutes: ${Math.ceil(chore.budget.maxSeconds / 60) + TIMEOUT_MARGIN_MINUTES}`,
    '    concurrency:',
    `      group: ${concurrencyGroup(c, 'tasklane-chore')}`,
    // replace cancels the run in progress; skip and queue keep it (GitHub then holds one pending run).
    `      cancel-in-progress: ${chore.concurrency === 'replace'}`,
    '    permissions:',
    '      contents: read',
    // Earlier fires: the ledger's check runs on the default branch's first commit (fireLedger.ts),
    // where a continue also finds its paused run (workflowContinue.ts).
    ...(readsChecks || continuesOnCi(c) ? ['      checks: read'] : []),
    // What the fire is told for its purpose (fireFacts.ts), read with the gate token: a failed
    // run's jobs and logs, a pull request's changed files; and whether a commented pull request is a
    // fork's (ciRun.ts asks GitHub: the comment's payload does not say). Read scopes only.
    // A continue downloads the paused run's artifact from that other workflow run.
    ...(trigger.event === 'workflow_run' || continuesOnCi(c) ? ['      actions: read'] : []),
    ...(commentOnPull || aboutPullRequests(trigger) ? ['      pull-requests: read'] : []),
    '    outputs:',
    '      artifact: ${{ steps.upload.outputs.artifact-id }}',
    '    steps:',
    `      - ${uses(ACTIONS.checkout)}`,
    '        with:',
    // The pull request's head when the comment is on one; the default branch for an issue's.
    ...(commentOnPull ? ["          ref: ${{ github.event.issue.pull_request && format('refs/pull/{0}/head', github.event.issue.number) || '' }}"] : []),
    '          path: repo',
    '          persist-credentials: false',
    ...(pullRequest
      ? [
          // chores.yaml, AGENTS.md and skills come from the default branch, never from the pull request.
          `      - ${uses(ACTIONS.checkout)}`,
          '        with:',
          '          ref: ${{ github.event.repository.default_branch }}',
          '          path: base',
          '          persist-credentials: false',
        ]
      : []),
    ...setupCli(),
    ...sandboxStep(chore),
    ...continueSteps(c, `tasklane-${id}`),
    ...setupSteps(chore, commentOnPull),
    '      - name: Hand the keys to Tasklane',
    '        env:',
    ...handed.map(([variable, value]) => `          ${variable}: ${value}`),
    '        run: |',
    ...handOverScript(handed.map(([variable]) => variable))
      .split('\n')
      .map((line) => `          ${line}`),
    `      - name: Run chore ${id}`,
    ...(resume.env.length ? ['        env:', ...resume.env] : []),
    `        run: ${command}`,
    '      - name: Remove the keys',
    '        if: always()',
    `        run: rm -rf "${SECRETS_DIR}"`,
    '      - id: upload',
    '        if: always()',
    `        ${uses(ACTIONS.uploadArtifact)}`,
    '        with:',
    `          name: tasklane-${id}`,
    `          path: ${OUT_DIR}/`,
    '          if-no-files-found: ignore',
    '          retention-days: 30',
  ];
}

/**
 * The apply job's lines. It runs after every fire the job condition let through: with the agent's
 * result when one was uploaded (even a failed run's), and without one when the agent job was
 * cancelled (replaced by a newer fire) or died first, so that such a fire is reported too
 * (`--chore` names it; `TASKLANE_AGENT_RESULT` says how the agent job ended, an enum GitHub sets).
 */
export function applyJob(c: CiChore): string[] {
  const id = choreIdText(c.chore.id);
  const agent = agentJobId(id);
  const pullRequest = isPullRequestEvent(c.trigger);
  return [
    `  ${applyJobId(id)}:`,
    `    needs: ${agent}`,
    // always(): a cancelled or crashed agent job is still reported; a skipped one was never a fire.
    `    if: "always() && needs.${agent}.result != 'skipped'"`,
    '    runs-on: ubuntu-latest',
    '    timeout-minutes: 10',
    '    concurrency:',
    `      group: ${concurrencyGroup(c, 'tasklane-apply')}`,
    '      cancel-in-progress: false',
    '    permissions:',
    ...Object.entries(applyPermissions(c)).map(([scope, level]) => `      ${scope}: ${level}`),
    '    steps:',
    `      - ${uses(ACTIONS.checkout)}`,
    '        with:',
    ...(pullRequest ? ['          ref: ${{ github.event.repository.default_branch }}'] : []),
    '          path: repo',
    '          persist-credentials: false',
    `      - if: needs.${agent}.outputs.artifact != ''`,
    `        ${uses(ACTIONS.downloadArtifact)}`,
    '        with:',
    `          name: tasklane-${id}`,
    `          path: ${OUT_DIR}`,
    ...setupCli(),
    `      - name: Apply the outputs of chore ${id}`,
    '        env:',
    '          GITHUB_TOKEN: ${{ github.token }}',
    // Optional: a pull request opened with GITHUB_TOKEN starts no CI (draftPull.ts). This step runs
    // only the pinned CLI on the artifact (no command, no model), so it may hold the secret.
    ...(c.chore.outputs?.pullRequest || c.chore.outputs?.pushToPullRequest ? ['          TASKLANE_PR_TOKEN: ${{ secrets.TASKLANE_PR_TOKEN }}'] : []),
    `          TASKLANE_AGENT_RESULT: \${{ needs.${agent}.result }}`,
    `        run: tasklane chores apply --workspace repo --from ${OUT_DIR} --chore ${id}`,
  ];
}

/** The status job's id for a chore. */
export function statusJobId(choreId: string): string {
  return `status-${choreIdText(choreId)}`;
}

/**
 * The status job (startedStatus.ts): for a chore whose fires are about an issue or a pull request,
 * beside the agent job and on its event's condition (not on Run workflow, whose fire is about no
 * item), it writes the "started" status on the item. It
 * holds only the scope of that comment and no secret but its own token; chores.yaml comes from
 * the default branch, as in the apply job. Chores about no item have none.
 */
export function statusJob(c: CiChore): string[] {
  const { trigger } = c;
  const scope = trigger.event === 'issues' ? 'issues' : isPullRequestEvent(trigger) || trigger.event === 'issue_comment' ? 'pull-requests' : undefined;
  // A fork's read-only review has no writing token to say it started with.
  if (!scope || trigger.forks === 'read-only') return [];
  const id = choreIdText(c.chore.id);
  return [
    `  ${statusJobId(id)}:`,
    `    if: ${JSON.stringify(jobCondition(c, { byHand: false }))}`,
    '    runs-on: ubuntu-latest',
    '    timeout-minutes: 5',
    '    permissions:',
    '      contents: read',
    ...(trigger.event === 'issue_comment' ? ['      issues: write'] : []),
    `      ${scope}: write`,
    '    steps:',
    `      - ${uses(ACTIONS.checkout)}`,
    '        with:',
    ...(isPullRequestEvent(trigger) ? ['          ref: ${{ github.event.repository.default_branch }}'] : []),
    '          path: repo',
    '          persist-credentials: false',
    ...setupCli(),
    `      - name: Say chore ${id} started`,
    '        env:',
    '          GITHUB_TOKEN: ${{ github.token }}',
    `        run: tasklane chores status --workspace repo --chore ${id}`,
  ];
}

/**
 * The least the apply job needs: `checks: write` for the fire's check run and ledger record,
 * `contents: read` to check out chores.yaml, the scope of the status comment on the item a fire is
 * about (statusComment.ts), and the write scopes of the declared outputs only.
 */
export function applyPermissions(c: CiChore): Record<string, 'read' | 'write'> {
  const outputs: ChoreOutputs = c.chore.outputs ?? {};
  const onPullRequests = isPullRequestEvent(c.trigger) || c.trigger.event === 'issue_comment';
  const scopes: Record<string, 'read' | 'write'> = { checks: 'write', contents: 'read' };
  // The status comment: an issue's through `issues`, a pull request's through `pull-requests`.
  if (c.trigger.event === 'issues' || c.trigger.event === 'issue_comment') scopes.issues = 'write';
  // A workflow_run fire of a pull request's commit reports on that pull request.
  if (onPullRequests || c.trigger.event === 'workflow_run') scopes['pull-requests'] = 'write';
  if (outputs.labels || outputs.comment || outputs.issue) {
    scopes.issues = 'write';
    if (onPullRequests) scopes['pull-requests'] = 'write';
  }
  if (outputs.review) scopes['pull-requests'] = 'write';
  if (outputs.pullRequest) {
    scopes.contents = 'write';
    scopes['pull-requests'] = 'write';
    // When GitHub refuses the pull request, the patch is filed as an issue instead (draftPull.ts).
    scopes.issues = 'write';
  }
  // A commit on the triggering pull request's branch (pushToPull.ts reads the pull request first).
  if (outputs.pushToPullRequest) {
    scopes.contents = 'write';
    scopes['pull-requests'] = 'write';
  }
  return scopes;
}

/**
 * Node, and the CLI pinned by content: the step downloads TASKLANE_CLI_URL and refuses it unless
 * its files hash to TASKLANE_CLI_SHA256, the generator's own (cliArtifact.ts). It runs from the
 * workspace root, outside the checkout, and runs nothing the artifact ships until it matched.
 */
/**
 * The chore's `setup:` (core/chores/setupSchema.ts) as steps in the checkout, before any key is
 * handed over: no `env:`, no token. Each line is parsed again here (the generator does not rely on
 * its caller) and written as its argv, each word single-quoted for bash, so the step runs exactly
 * that program with those arguments; steps are named by position, never by chore text.
 */
function setupSteps(chore: CiChore['chore'], commentOnPull: boolean): string[] {
  // A comment chore that pushes to the commented pull request checks out its head, which may be a
  // fork's (the comment's payload does not say): setup would run a fork's code before the keys.
  if (chore.setup?.length && commentOnPull)
    throw new WorkflowError(
      `chore ${chore.id}: setup cannot go with outputs.pushToPullRequest on a comment chore: its checkout may be a fork's pull request, whose code would run before the model key is handed over. Remove setup, or run it as a declared command.`,
    );
  return (chore.setup ?? []).flatMap((line, i) => {
    const parsed = parseCommandLine(line);
    if ('problem' in parsed) throw new WorkflowError(`chore ${chore.id}: setup "${line}" cannot be written: ${parsed.problem}.`);
    const script = parsed.argv.map((word) => `'${word.replace(/'/g, `'\\''`)}'`).join(' ');
    return [`      - name: Set up ${i + 1}`, '        working-directory: repo', `        run: ${quoted(script)}`];
  });
}

/** Lets declared commands run sealed where AppArmor restricts user namespaces (commandSandbox.ts); only for a chore that has some. */
function sandboxStep(chore: CiChore['chore']): string[] {
  if (!chore.commands?.length && !chore.verify?.length) return [];
  return [
    '      - name: Let declared commands run sealed',
    '        run: |',
    ...sandboxStepScript()
      .split('\n')
      .map((line) => `          ${line}`),
  ];
}

function setupCli(): string[] {
  return [
    `      - ${uses(ACTIONS.setupNode)}`,
    '        with:',
    `          node-version: ${NODE_VERSION}`,
    '      - name: Install the Tasklane CLI',
    '        run: |',
    ...INSTALL_CLI_SCRIPT.split('\n').map((line) => `          ${line}`),
  ];
}
