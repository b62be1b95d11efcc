import * as vscode from 'vscode';
import { forLabel } from '../../core/security/surfaceText';
import { notice } from '../notice';
import { appendChore } from '../../core/chores/choreSerialize';
import type { ChoreSpec } from '../../core/chores/choreSchema';
import { allChoreTemplates } from '../../core/chores/templates';
import type { ChoreHost } from './choreHost';
import { workspaceSecretKey } from './choreHost';
import { describeTrigger } from './choreViews';
import type { ChoreDefinition } from '../../core/chores/types';
import type { ChoreReview } from '../../shared/choreProtocol';
import { showInvisible } from '../../shared/visibleText';
import type { ConsentDialogs } from '../consentDialog';
import { parkedRunOf } from '../../core/chores/budgetPause';

/**
 * Arguments that make `tasklane.newChore` skip its questions (scripts, tests). Any field left out
 * is asked for.
 */
export interface NewChoreArgs {
  /** A template key, or `blank`. */
  template?: string;
  id?: string;
  name?: string;
  cron?: string;
  files?: string;
  task?: string;
  prompt?: string;
}

const idPattern = /^[a-z0-9][a-z0-9-]*$/;

/**
 * `tasklane.newChore`, `tasklane.runChoreNow`, `tasklane.enableChore`, `tasklane.disableChore`,
 * `tasklane.resumeChore` and
 * `tasklane.setSecret`. The chore host exists once
 * the store is open (`ready`); setting a secret needs only SecretStorage, so it does not wait.
 */
export function registerChoreCommands(ready: Promise<ChoreHost>, secrets: vscode.SecretStorage, dialogs: ConsentDialogs): vscode.Disposable[] {
  return [
    vscode.commands.registerCommand('tasklane.newChore', async (args?: unknown) =>
      newChoreFlow(await ready, dialogs, (args && typeof args === 'object' ? args : {}) as NewChoreArgs, args !== undefined),
    ),
    // A chore that runs on CI replays a recorded GitHub event: `eventFile` (a path or a Uri), else the one the person picks.
    vscode.commands.registerCommand('tasklane.runChoreNow', async (id?: unknown, eventFile?: unknown) => {
      const host = await ready;
      let choreId = typeof id === 'string' && id ? id : undefined;
      if (!choreId) {
        const chores = host.enabledChores();
        if (!chores.length) {
          void vscode.window.showInformationMessage(notice`Tasklane: there is no chore to run. Create one with "Tasklane: New Chore".`);
          return undefined;
        }
        choreId = (
          await vscode.window.showQuickPick(
            chores.map((c) => ({ label: forLabel(c.name), description: forLabel(c.id), id: c.id })),
            { title: vscode.l10n.t('Tasklane: run which chore now?') },
          )
        )?.id;
      }
      if (!choreId) return undefined;
      const file = eventFile instanceof vscode.Uri ? eventFile : typeof eventFile === 'string' && eventFile ? vscode.Uri.file(eventFile) : undefined;
      return host.runNow(choreId, file);
    }),
    vscode.commands.registerCommand('tasklane.setSecret', async (name?: unknown, value?: unknown) => {
      const secretName =
        typeof name === 'string' && name
          ? name
          : await vscode.window.showInputBox({
              title: vscode.l10n.t("Tasklane: secret name (as written in urlSecret / smtpSecret, or an MCP server's secrets:)"),
              ignoreFocusOut: true,
              validateInput: (v) => (v.trim() ? undefined : 'Enter the name used in .tasklane/chores.yaml'),
            });
      if (!secretName) return false;
      const secret =
        typeof value === 'string'
          ? value
          : await vscode.window.showInputBox({
              title: vscode.l10n.t(
                'Tasklane: value of secret "{0}" (a webhook URL, an SMTP URL such as smtps://user:pass@host:465, or a token an MCP server gets)',
                // The secret's name comes from chores.yaml or from the caller.
                forLabel(secretName),
              ),
              password: true,
              ignoreFocusOut: true,
            });
      if (secret === undefined) return false;
      // A value from a caller (another extension, an agent tool) is not one the person typed: it
      // decides where enabled chores send their notices, so the person sees where and says yes.
      if (typeof value === 'string' && !(await confirmSecret(dialogs, secretName, secret))) return false;
      // Scoped to this workspace: another repository naming the same secret cannot use it.
      if (secret === '') await secrets.delete(workspaceSecretKey(secretName));
      else await secrets.store(workspaceSecretKey(secretName), secret);
      return true;
    }),
    vscode.commands.registerCommand('tasklane.enableChore', async (id?: unknown, hash?: unknown) =>
      enableChoreFlow(await ready, dialogs, typeof id === 'string' ? id : undefined, typeof hash === 'string' ? hash : undefined),
    ),
    vscode.commands.registerCommand('tasklane.resumeChore', async (id?: unknown) => {
      const host = await ready;
      let choreId = typeof id === 'string' && id ? id : undefined;
      if (!choreId) {
        const paused = host.validChores().filter((c) => host.spend.paused(c.id) || parkedRunOf(host.runLog, c.id));
        if (!paused.length) {
          void vscode.window.showInformationMessage(notice`Tasklane: no chore is paused.`);
          return undefined;
        }
        choreId = (
          await vscode.window.showQuickPick(
            paused.map((c) => ({ label: forLabel(c.name), description: forLabel(host.spend.paused(c.id)?.reason ?? ''), id: c.id })),
            { title: vscode.l10n.t('Tasklane: resume which chore?') },
          )
        )?.id;
      }
      if (!choreId) return undefined;
      const message = await host.resume(choreId);
      void vscode.window.showInformationMessage(notice`Tasklane: ${message}`);
      return message;
    }),
    vscode.commands.registerCommand('tasklane.disableChore', async (id?: unknown) => {
      const host = await ready;
      let choreId = typeof id === 'string' && id ? id : undefined;
      if (!choreId) {
        const enabled = host.enabledChores();
        if (!enabled.length) {
          void vscode.window.showInformationMessage(notice`Tasklane: no chore is enabled.`);
          return false;
        }
        choreId = (
          await vscode.window.showQuickPick(
            enabled.map((c) => ({ label: forLabel(c.name), description: forLabel(c.id), id: c.id })),
            { title: vscode.l10n.t('Tasklane: disable which chore?') },
          )
        )?.id;
      }
      return choreId ? host.disable(choreId) : false;
    }),
  ];
}

/**
 * `tasklane.enableChore [id] [hash]`. It always shows what the chore does in a modal (the whole
 * prompt, the instructions of each skill it names, trigger, powers, budget, escalation) and
 * enables it only on the person's "Enable", bound to the hash of exactly what was shown. A caller
 * (another extension, an agent tool, a test) passing an id only preselects the chore; passing the
 * `definitionHash` it read from `tasklane.getState` pins the definition, and a chore that changed
 * since is refused before anything is asked.
 */
async function enableChoreFlow(host: ChoreHost, dialogs: ConsentDialogs, id: string | undefined, hash: string | undefined): Promise<boolean> {
  let choreId = id;
  if (!choreId) {
    const waiting = host.validChores().filter((c) => c.consent === 'needed');
    if (!waiting.length) {
      void vscode.window.showInformationMessage(notice`Tasklane: every chore in .tasklane/chores.yaml is already enabled.`);
      return false;
    }
    choreId = (
      await vscode.window.showQuickPick(
        waiting.map((c) => ({ label: forLabel(c.name), description: forLabel(c.id), id: c.id })),
        { title: vscode.l10n.t('Tasklane: review and enable which chore?') },
      )
    )?.id;
    if (!choreId) return false;
  }
  const found = host.review(choreId);
  if (!found) throw new Error(`There is no valid chore "${choreId}" in .tasklane/chores.yaml; check its id and the problems shown on the file.`);
  const review = found.review;
  if (hash !== undefined && hash !== review.definitionHash)
    throw new Error(`The chore "${choreId}" changed since it was shown; review it again before enabling it.`);
  const yes = await dialogs.confirm(
    `Enable the chore "${showInvisible(found.chore.name)}" (${choreId})?`,
    enableDetail(found.chore, review),
    'Enable',
    `chore-${choreId}`,
  );
  if (!yes) return false;
  await host.enable(choreId, review.definitionHash);
  return true;
}

/**
 * Asks before a caller's value becomes a chore secret. The value itself is not shown (it often
 * carries a token); where it sends is: the scheme and host of a URL.
 */
function confirmSecret(dialogs: ConsentDialogs, name: string, value: string): Promise<boolean> {
  let where: string;
  try {
    const url = new URL(value);
    where = `${url.protocol}//${url.host}`;
  } catch {
    where = 'a value that is not a URL';
  }
  const detail =
    value === ''
      ? 'Chores that name it can no longer send their notices (webhook or mail) until it is set again.'
      : `Chores that name it (urlSecret / smtpSecret) send their notices, with their run summaries, to: ${showInvisible(where)}\n\nThe value was passed by a caller (another extension or an agent tool), not typed by you.`;
  return dialogs.confirm(
    `${value === '' ? 'Remove' : 'Set'} the Tasklane secret "${showInvisible(name)}" for this workspace?`,
    detail,
    value === '' ? 'Remove' : 'Set',
    `secret-${name}`,
  );
}

/** Everything the Enable modal shows: what reaches the model and what the chore may do. */
export function enableDetail(chore: ChoreDefinition, review: ChoreReview): string {
  return [
    `Trigger: ${describeTrigger(chore)}`,
    `Prompt:\n${showInvisible(review.prompt.trim())}`,
    ...(review.workspaceRules !== undefined
      ? [`Workspace rules (AGENTS.md, which the prompt starts with):\n${showInvisible(review.workspaceRules.trim())}`]
      : []),
    ...review.skillBodies.map((s) =>
      s.body !== undefined ? `Skill ${s.name} (its instructions reach the model):\n${showInvisible(s.body.trim())}` : `Skill ${s.name}: not installed`,
    ),
    `Action sets: ${review.actionSets.join(', ')} (edits and commands still ask for approval)`,
    ...(chore.commands?.length ? [`Commands it runs without asking: ${chore.commands.join(', ')}`] : []),
    // Consented here too (it is in the hash), though only its CI job runs it.
    ...(chore.setup?.length ? [`Setup its CI job runs first, in order (not run in VS Code): ${chore.setup.join(', ')}`] : []),
    ...(chore.network?.length
      ? [`Network its commands and checks get on the command line (listing any host opens the whole network to them): ${chore.network.join(', ')}`]
      : []),
    ...(chore.verify?.length
      ? [`Checks it runs without asking when its task ends after changing files (${chore.verifyRounds} rounds at most): ${chore.verify.join(', ')}`]
      : []),
    ...(review.mcp?.length
      ? [`MCP servers it starts and the only tools it may call, without asking:\n${review.mcp.map((line) => `- ${line}`).join('\n')}`]
      : []),
    `Budget: ${review.budget}`,
    `Escalation: ${review.escalation.length ? review.escalation.join('; ') : 'none'}`,
    `Policy: ${review.policy}`,
    '',
    'It runs unattended with your model and key. Any change to this definition, to the skills it names, to AGENTS.md or to the MCP servers it names disables it again until you review it.',
  ].join('\n');
}

async function newChoreFlow(host: ChoreHost, dialogs: ConsentDialogs, args: NewChoreArgs, fromCaller: boolean): Promise<string | undefined> {
  const uri = host.fileUri();
  if (!uri) {
    void vscode.window.showWarningMessage(notice`Tasklane: open a folder first; chores live in its .tasklane/chores.yaml.`);
    return undefined;
  }
  const templateKey =
    args.template ??
    (
      await vscode.window.showQuickPick(
        [
          ...allChoreTemplates.map((t) => ({ label: forLabel(t.label), detail: forLabel(t.detail), key: t.key })),
          { label: vscode.l10n.t('Blank chore'), detail: vscode.l10n.t('Start from an empty chore and write its prompt yourself.'), key: 'blank' },
        ],
        { title: vscode.l10n.t('Tasklane: new chore: start from'), ignoreFocusOut: true },
      )
    )?.key;
  if (!templateKey) return undefined;
  const template = allChoreTemplates.find((t) => t.key === templateKey);
  if (!template && templateKey !== 'blank')
    throw new Error(`Unknown chore template "${templateKey}"; use one of ${allChoreTemplates.map((t) => t.key).join(', ')} or blank.`);
  // A blank chore asks for its prompt too.
  const steps = template ? 4 : 5;
  const taken = new Set(host.validChores().map((c) => c.id));
  const id =
    args.id ??
    (await vscode.window.showInputBox({
      title: vscode.l10n.t('Tasklane: new chore (2/{0}): id', steps),
      value: uniqueId(template?.key ?? 'my-chore', taken),
      ignoreFocusOut: true,
      validateInput: (v) => (!idPattern.test(v) ? 'Use a-z, 0-9 and -' : taken.has(v) ? `A chore "${v}" already exists` : undefined),
    }));
  if (!id) return undefined;
  const name =
    args.name ??
    (await vscode.window.showInputBox({
      title: vscode.l10n.t('Tasklane: new chore (3/{0}): name', steps),
      value: template?.spec.name ?? id,
      ignoreFocusOut: true,
    }));
  if (!name) return undefined;
  const trigger = await askTrigger(args, template?.spec.trigger, vscode.l10n.t('Tasklane: new chore (4/{0}): ', steps));
  if (!trigger) return undefined;
  // A blank chore has no prompt yet: ask for it (a template brings its own, edited in the file).
  const prompt = template
    ? undefined
    : (args.prompt ??
      (await vscode.window.showInputBox({
        title: vscode.l10n.t('Tasklane: new chore (5/5): prompt (what should the agent do on each run?)'),
        value: 'Describe what this chore should do, and finish with task_end and output {"status": "done"}.',
        ignoreFocusOut: true,
        validateInput: (v) => (v.trim() ? undefined : 'Write what the agent should do; it can be edited later in .tasklane/chores.yaml'),
      })));
  if (!template && !prompt) return undefined;
  const spec: ChoreSpec = template ? { ...template.spec, id, name, trigger } : { id, name, trigger, prompt: prompt!, successWhen: "status = 'done'" };
  if (args.prompt && template) spec.prompt = args.prompt;
  let text = '';
  try {
    text = new TextDecoder().decode(await vscode.workspace.fs.readFile(uri));
  } catch {
    await vscode.workspace.fs.createDirectory(vscode.Uri.joinPath(uri, '..'));
  }
  const next = appendChore(text, spec);
  // Arguments from a caller wrote what the person did not type: they see the chore before it is
  // written and consented (it runs unattended from then on).
  if (fromCaller) {
    // The new chore alone, as it is written: the rest of the file is the person's already, and
    // shown with it the new one could land past what the modal shows at once.
    const added = appendChore('', spec);
    const yes = await dialogs.confirm(
      `Create the chore "${showInvisible(name)}" (${id}) in .tasklane/chores.yaml and enable it?`,
      `${showInvisible(added.trim())}\n\nIt runs unattended with your model and key on its trigger.`,
      'Create',
      `new-chore-${id}`,
    );
    if (!yes) return undefined;
  }
  await vscode.workspace.fs.writeFile(uri, new TextEncoder().encode(next));
  // Written here by the person: consented at creation (a later edit of it asks again).
  await host.created(id);
  await vscode.window.showTextDocument(uri, { preview: false });
  return id;
}

async function askTrigger(args: NewChoreArgs, preset: ChoreSpec['trigger'] | undefined, title: string): Promise<ChoreSpec['trigger'] | undefined> {
  if (args.cron) return { cron: args.cron };
  if (args.files)
    return {
      files: args.files
        .split(',')
        .map((s) => s.trim())
        .filter(Boolean),
    };
  if (args.task) return { task: { name: args.task, when: 'exitCode != 0' } };
  // A GitHub event trigger runs on CI: the template's is kept and edited in the file.
  if (preset?.github) return preset;
  const kind = preset
    ? preset.cron !== undefined
      ? 'cron'
      : preset.files !== undefined
        ? 'files'
        : 'task'
    : (
        await vscode.window.showQuickPick(
          [
            { label: vscode.l10n.t('On a schedule (cron)'), trigger: 'cron' },
            { label: vscode.l10n.t('When files change (glob)'), trigger: 'files' },
            { label: vscode.l10n.t('When a VS Code task fails'), trigger: 'task' },
          ],
          { title: vscode.l10n.t('{0}when does it run?', forLabel(title)), ignoreFocusOut: true },
        )
      )?.trigger;
  if (!kind) return undefined;
  if (kind === 'cron') {
    const cron = await vscode.window.showInputBox({
      title: vscode.l10n.t('{0}cron pattern (minute hour day month weekday)', forLabel(title)),
      value: preset?.cron ?? '0 2 * * *',
      ignoreFocusOut: true,
    });
    return cron ? { cron, ...(preset?.timezone ? { timezone: preset.timezone } : {}) } : undefined;
  }
  if (kind === 'files') {
    const files = await vscode.window.showInputBox({
      title: vscode.l10n.t('{0}file globs, comma-separated', forLabel(title)),
      value: 'src/**/*.ts',
      ignoreFocusOut: true,
    });
    return files
      ? {
          files: files
            .split(',')
            .map((s) => s.trim())
            .filter(Boolean),
        }
      : undefined;
  }
  const task = await vscode.window.showInputBox({
    title: vscode.l10n.t('{0}task name (fires when it exits non-zero)', forLabel(title)),
    value: preset?.task?.name ?? 'build',
    ignoreFocusOut: true,
  });
  return task ? { task: { name: task, when: preset?.task?.when ?? 'exitCode != 0' } } : undefined;
}

function uniqueId(base: string, taken: Set<string>): string {
  if (!taken.has(base)) return base;
  for (let i = 2; ; i++) if (!taken.has(`${base}-${i}`)) return `${base}-${i}`;
}
