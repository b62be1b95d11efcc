/**
 * The core action set: talking to the user and steering the task itself. The read actions live
 * in readActions.ts; edits and commands (approval-gated) are registered by their own modules.
 */
import * as z from 'zod/v4';
import { ACTION_SETS, isOfferedSet, unknownSetMessage } from './actionSets';
import type { GrantableSet } from './actionSets';
import { defineAction } from './types';
import type { ActionDef } from './types';

const todoSchema = z.object({
  text: z.string().min(1),
  status: z.enum(['pending', 'in_progress', 'done']),
});

export const sendMessage = defineAction({
  name: 'send_message',
  description: 'Send a message to the user (markdown). Use it to reply, report progress or results.',
  input: z.object({ text: z.string().min(1) }),
  actionSets: [ACTION_SETS.conversation, ACTION_SETS.task],
  parallelizable: true,
  irreversible: false,
  approval: 'never',
  async run(input, ctx) {
    ctx.turn.say(input.text);
    return 'sent';
  },
});

/**
 * task_start, checking the sets it names against what exists now (`grantable`: the host's sets,
 * one per trusted MCP server): an unknown one is an input error naming the real sets, so the
 * model's repair turn can pick one (a conversation never sees an action's run error).
 */
export function createTaskStart(grantable: () => readonly GrantableSet[]): ActionDef {
  return defineAction({
    name: 'task_start',
    description:
      'Start a task that works on its own over several turns. mode "simple" for a few steps, "complex" for multi-step work with a todo list. ' +
      'You may start several independent tasks at once. Pick skills from the catalog when they fit.',
    input: z.object({
      name: z.string().min(1).max(80).describe('Short title'),
      instruction: z.string().min(1).describe('Everything the task needs to know'),
      mode: z.enum(['simple', 'complex']),
      skills: z.array(z.string()).optional(),
      actionSets: z
        .array(z.string().refine((name) => isOfferedSet(name, grantable()), { error: (issue) => unknownSetMessage(String(issue.input), grantable()) }))
        .optional()
        .describe(
          'The action sets the task gets besides reading: "files" (propose edits), "commands" (run commands and tasks), "mcp:<server>" (that MCP server\'s tools, listed as mcp_<server>_<tool>). Omitted: ["files", "commands"]. Name all the task needs: it gets exactly these.',
        ),
    }),
    actionSets: [ACTION_SETS.conversation, ACTION_SETS.task],
    parallelizable: true,
    irreversible: false,
    approval: 'never',
    async run(input, ctx) {
      const unknown = (input.skills ?? []).filter((s) => !ctx.skillNames.includes(s));
      if (unknown.length) throw new Error(`Unknown skill(s): ${unknown.join(', ')}. Use names from the catalog: ${ctx.skillNames.join(', ') || '(none)'}.`);
      const refused = ctx.admitTask?.();
      if (refused) throw new Error(refused);
      const id = ctx.turn.startTask({
        name: input.name,
        instruction: input.instruction,
        mode: input.mode,
        skills: input.skills,
        ...(input.actionSets ? { actionSets: input.actionSets } : {}),
      });
      return `started task ${id}`;
    },
  });
}

export const ignore = defineAction({
  name: 'ignore',
  description: 'The message needs no answer (thanks, acknowledgements).',
  input: z.object({ reason: z.string().optional() }),
  actionSets: [ACTION_SETS.conversation],
  parallelizable: true,
  irreversible: false,
  approval: 'never',
  async run(_input, ctx) {
    ctx.turn.ignore();
    return 'ignored';
  },
});

export const taskEnd = defineAction({
  name: 'task_end',
  description:
    'End this task with a summary for the user. output: optional JSON object with the result (a chore checks it). ' +
    'Complex tasks: the user must approve first; the first call asks them.',
  input: z.object({
    status: z.enum(['completed', 'error']).default('completed'),
    summary: z.string().min(1),
    output: z.record(z.string(), z.unknown()).optional(),
  }),
  actionSets: [ACTION_SETS.task],
  parallelizable: false,
  irreversible: false,
  approval: 'never',
  async run(input, ctx) {
    if (ctx.taskMode === 'complex' && !ctx.endApproved && input.status === 'completed') {
      ctx.turn.askUser(`I think this task is done:\n\n${input.summary}\n\nShall I close it? Reply yes, or tell me what is missing.`, { endApproval: true });
      return 'Asked the user to approve ending the task. When they reply yes, call task_end again.';
    }
    ctx.turn.endTask({ status: input.status, summary: input.summary, output: input.output });
    return 'task ended';
  },
});

export const updateTodos = defineAction({
  name: 'update_todos',
  description: 'Replace the visible todo list (the whole list, each with status). Keep exactly one in_progress while working.',
  input: z.object({ todos: z.array(todoSchema) }),
  actionSets: [ACTION_SETS.task],
  parallelizable: false,
  irreversible: false,
  approval: 'never',
  async run(input, ctx) {
    ctx.turn.setTodos(input.todos);
    const done = input.todos.filter((t) => t.status === 'done').length;
    return `todos updated (${done}/${input.todos.length} done)`;
  },
});

export const askUser = defineAction({
  name: 'ask_user',
  description: 'Ask the user a question and sleep until they reply (costs nothing while waiting).',
  input: z.object({ question: z.string().min(1) }),
  actionSets: [ACTION_SETS.task],
  parallelizable: false,
  irreversible: false,
  approval: 'never',
  async run(input, ctx) {
    ctx.turn.askUser(input.question);
    return 'asked; the reply will arrive as a user message';
  },
});

export const wait = defineAction({
  name: 'wait',
  description: 'Pause this task for a number of seconds (e.g. for a build), then continue.',
  input: z.object({
    seconds: z.coerce
      .number()
      .int()
      .min(1)
      .max(7 * 24 * 3600),
    reason: z.string().default('waiting'),
  }),
  actionSets: [ACTION_SETS.task],
  parallelizable: false,
  irreversible: false,
  approval: 'never',
  async run(input, ctx) {
    ctx.turn.waitUntil(ctx.now() + input.seconds * 1000, input.reason);
    return `will continue in ${input.seconds} s`;
  },
});

/**
 * `remember` proposes; the person decides (Tasklane: Review Memory Notes). `approval: 'policy'`
 * puts it behind the Restricted Mode guard like every other action that changes what later runs.
 */
export const remember = defineAction({
  name: 'remember',
  description:
    "Propose a durable fact about this workspace or the user's preferences for memory. The user reviews each note before it is used in future tasks.",
  input: z.object({ note: z.string().min(1).max(500) }),
  actionSets: [ACTION_SETS.task],
  parallelizable: true,
  irreversible: false,
  approval: 'policy',
  async run(input, ctx) {
    await ctx.remember(input.note);
    return "Proposed for the user's review; it is not in memory until they accept it (do not ask them about it now).";
  },
});

/** The core actions; `grantable` is what task_start may name besides files and commands (createTaskStart). */
export function coreActions(grantable: () => readonly GrantableSet[]): ActionDef[] {
  return [sendMessage, createTaskStart(grantable), ignore, taskEnd, updateTodos, askUser, wait, remember];
}
