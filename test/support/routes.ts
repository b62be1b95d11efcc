/**
 * Markers that route scripted model answers to the work they belong to (test/fixtures/modelServer.ts,
 * "Routing"). The host and UI tiers share one workbench with background work (memory distillation,
 * the router, chores), so each test puts a marker in the text the model sees (the message, a
 * task's instruction, a chore's prompt) and scripts that work's answers with it.
 */

let routes = 0;
const MARKER = /\[[^\]\s]+#[0-9a-z]+\]/;

/** A fresh marker for one piece of work, e.g. `[smoke#k3f2]`. */
export function route(label: string): string {
  return `[${label}#${process.pid.toString(36)}${(++routes).toString(36)}]`;
}

interface ToolCall {
  name: string;
  arguments?: unknown;
}

/**
 * The steps with `route` set to `marker`. A scripted `task_start` whose instruction carries no
 * marker gets this one appended, so the started task's own requests carry it too (give each task
 * a marker of its own in its instruction when their answers must not mix).
 */
export function routeSteps(marker: string, steps: ReadonlyArray<Record<string, unknown>>): Array<Record<string, unknown>> {
  return steps.map((step) => ({
    ...step,
    route: marker,
    ...(Array.isArray(step.toolCalls) ? { toolCalls: (step.toolCalls as ToolCall[]).map((call) => carry(call, marker)) } : {}),
  }));
}

function carry(call: ToolCall, marker: string): ToolCall {
  if (call.name !== 'task_start' || typeof call.arguments !== 'object' || call.arguments === null) return call;
  const args = call.arguments as { instruction?: unknown };
  if (typeof args.instruction !== 'string' || MARKER.test(args.instruction)) return call;
  return { ...call, arguments: { ...args, instruction: `${args.instruction} ${marker}` } };
}
