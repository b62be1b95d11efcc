import type Jsonata from 'jsonata';
import type { RE2JS } from 're2js';
import { re2 } from '../re2';

/**
 * JSONata in chores: `successWhen` over a run's final output, and a task trigger's `when` over
 * `{ name, exitCode }`. Both are compiled when chores.yaml loads (see choreSchema.ts), so here a
 * compile error only happens for an expression that bypassed the loader.
 *
 * The expressions come from a repository file, and they run on the extension host's only thread,
 * so evaluation is bounded (JSONATA_LIMITS): jsonata checks the time and the evaluation depth at
 * every step (so `($f := function($x){ $f($x + 1) }; $f(0))`, which jsonata's tail calls would
 * otherwise spin forever, stops after the timeout), sequences are capped, and regex literals run
 * on RE2 (linear time) instead of a backtracking RegExp. A single step is bounded too: the
 * built-ins that build output from a constant argument rather than from the input (`$pad` of a
 * width, `$join`, `$replace` with a string) check the size they would build before building it,
 * the ones that parse a picture string (`$formatNumber`, `$formatInteger`, `$fromMillis`,
 * `$toMillis`, `$now`, whose parsing grows faster than the picture) refuse a long one, every
 * step's result is checked against a size cap, and one evaluation may take only so many steps and
 * build only so many characters in all ({@link JSONATA_BOUNDS}). So `$pad('', 5e7)`, a 900,000
 * character number picture or doubling a string in a recursion ends with an error at the bound
 * instead of freezing the host.
 */

/** Bounds of one evaluation. */
export const JSONATA_LIMITS = {
  /** Milliseconds of evaluation, checked at every step. */
  timeout: 1000,
  /** Nesting depth of evaluation (deep non-tail recursion). */
  stack: 500,
  /** Longest sequence an expression may build. */
  sequence: 100_000,
} as const;

let jsonataModule: typeof Jsonata | undefined;

/**
 * jsonata, loaded on the first expression compiled. Only chores with `successWhen` or a task
 * trigger's `when` use it, so the extension host's bundle leaves it out: esbuild.js turns this
 * `require` into one of `dist/lazy/jsonata.js` (LAZY_REQUIRE), loaded synchronously because
 * compiling is synchronous (the chores.yaml validator runs inside a zod refinement).
 */
function jsonata(...args: Parameters<typeof Jsonata>): ReturnType<typeof Jsonata> {
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  jsonataModule ??= require('jsonata') as typeof Jsonata;
  return jsonataModule(...args);
}

/** The step and memory bounds of one evaluation, on top of jsonata's own {@link JSONATA_LIMITS}. */
export const JSONATA_BOUNDS = {
  /** Evaluation steps (jsonata's `evaluate` calls). */
  steps: 1_000_000,
  /** Longest string one step may produce (and `$pad`, `$join`, `$replace` may build). */
  valueChars: 1_000_000,
  /** Characters of step results in all, over one evaluation. */
  totalChars: 8_000_000,
  /** Longest picture string `$formatNumber`, `$formatInteger`, `$fromMillis`, `$toMillis` and `$now` may parse. */
  pictureChars: 1_000,
} as const;

/** The built-ins that parse a picture string, and which argument it is. */
const PICTURE_ARGUMENT = { formatNumber: 1, formatInteger: 1, fromMillis: 1, toMillis: 1, now: 0 } as const;
type PictureBuiltin = keyof typeof PICTURE_ARGUMENT;

/** Longest expression accepted. */
export const MAX_EXPRESSION_CHARS = 2000;

/**
 * The RegExp-shaped engine jsonata calls for regex literals (`exec` + `lastIndex`), on RE2.
 * Flags `i` and `m` carry over; RE2 has no lookaround or backreferences (refused at compile).
 */
class Re2RegexEngine {
  lastIndex = 0;
  private readonly pattern: RE2JS;

  constructor(source: RegExp | string, flags?: string) {
    const text = typeof source === 'string' ? source : source.source;
    const allFlags = `${typeof source === 'string' ? '' : source.flags}${flags ?? ''}`;
    this.pattern = re2().compile(text, (allFlags.includes('i') ? re2().CASE_INSENSITIVE : 0) | (allFlags.includes('m') ? re2().MULTILINE : 0));
  }

  exec(input: string): (string[] & { index: number; input: string }) | null {
    const matcher = this.pattern.matcher(input);
    if (this.lastIndex > input.length || !matcher.find(this.lastIndex)) {
      this.lastIndex = 0;
      return null;
    }
    const groups: string[] = [];
    for (let i = 0; i <= matcher.groupCount(); i += 1) groups.push(matcher.group(i) ?? (undefined as unknown as string));
    const start = matcher.start();
    const end = matcher.end();
    this.lastIndex = end === start ? end + 1 : end;
    return Object.assign(groups, { index: start, input });
  }
}

function regexSources(node: unknown, out: RegExp[] = []): RegExp[] {
  if (node instanceof RegExp) out.push(node);
  else if (Array.isArray(node)) node.forEach((child) => regexSources(child, out));
  else if (node && typeof node === 'object') Object.values(node).forEach((child) => regexSources(child, out));
  return out;
}

/** A compiled expression, kept with its source for messages. */
export interface CompiledExpression {
  source: string;
  expression: Jsonata.Expression;
}

/** An evaluation that went past {@link JSONATA_BOUNDS}. */
function overBound(what: string): Error {
  return new Error(`the expression ${what}; chore expressions are bounded so they cannot freeze the editor`);
}

/** The built-ins' implementations, taken once from jsonata itself so the bounded ones can delegate. */
let builtins: Promise<Record<'pad' | 'join' | 'replace' | PictureBuiltin, { implementation: (...args: unknown[]) => unknown; signature: string }>> | undefined;
function builtinsOf(): NonNullable<typeof builtins> {
  builtins ??= (async () => {
    const take = async (name: string) => {
      const fn = (await jsonata(`$${name}`).evaluate({})) as { implementation: (...args: unknown[]) => unknown; signature: { definition: string } };
      return { implementation: fn.implementation, signature: fn.signature.definition };
    };
    const pictures = Object.fromEntries(await Promise.all(Object.keys(PICTURE_ARGUMENT).map(async (name) => [name, await take(name)] as const))) as Record<
      PictureBuiltin,
      Awaited<ReturnType<typeof take>>
    >;
    return { pad: await take('pad'), join: await take('join'), replace: await take('replace'), ...pictures };
  })();
  return builtins;
}

/** Code points, as jsonata counts string length. */
function codePoints(text: string): number {
  let n = 0;
  for (const _ of text) n += 1;
  return n;
}

/**
 * Installs the step and memory bounds on a compiled expression: a step counter and a size check of
 * every step's result (jsonata's evaluate-exit hook), size-checked `$pad`, `$join`, `$replace`, and
 * picture-checked `$formatNumber`, `$formatInteger`, `$fromMillis`, `$toMillis`, `$now`.
 * The counters are per evaluation ({@link evaluateBounded} resets them).
 */
async function bound(compiled: CompiledExpression): Promise<{ reset(): void }> {
  const expression = compiled.expression;
  const state = { steps: 0, chars: 0 };
  const b = await builtinsOf();
  const limit = JSONATA_BOUNDS.valueChars;
  expression.assign(Symbol.for('jsonata.__evaluate_entry') as unknown as string, () => {
    state.steps += 1;
    if (state.steps > JSONATA_BOUNDS.steps) throw overBound(`took more than ${JSONATA_BOUNDS.steps} steps`);
  });
  expression.assign(Symbol.for('jsonata.__evaluate_exit') as unknown as string, (_expr: unknown, _input: unknown, _env: unknown, result: unknown) => {
    if (typeof result !== 'string') return;
    if (result.length > limit) throw overBound(`built a string of ${result.length} characters (at most ${limit})`);
    state.chars += result.length;
    if (state.chars > JSONATA_BOUNDS.totalChars) throw overBound(`built more than ${JSONATA_BOUNDS.totalChars} characters in all`);
  });
  expression.registerFunction(
    'pad',
    function (this: unknown, text: unknown, width: unknown, char: unknown) {
      if (typeof width === 'number' && Math.abs(width) > limit) throw overBound(`asked $pad for ${Math.abs(width)} characters (at most ${limit})`);
      return b.pad.implementation.call(this, text, width, char);
    },
    b.pad.signature,
  );
  expression.registerFunction(
    'join',
    function (this: unknown, strings: unknown, separator: unknown) {
      const parts = Array.isArray(strings) ? (strings as unknown[]) : [strings];
      let size = typeof separator === 'string' ? separator.length * Math.max(0, parts.length - 1) : 0;
      for (const part of parts) size += typeof part === 'string' ? part.length : 0;
      if (size > limit) throw overBound(`asked $join for ${size} characters (at most ${limit})`);
      return b.join.implementation.call(this, strings, separator);
    },
    b.join.signature,
  );
  expression.registerFunction(
    'replace',
    function (this: unknown, text: unknown, pattern: unknown, replacement: unknown, most: unknown) {
      if (typeof text === 'string' && typeof replacement === 'string' && replacement.length > 0) {
        // Every position can match: the output is at most this long.
        const matches = typeof most === 'number' ? Math.min(most, codePoints(text) + 1) : codePoints(text) + 1;
        const size = text.length + matches * replacement.length;
        if (size > limit) throw overBound(`could build ${size} characters with $replace (at most ${limit})`);
      }
      return b.replace.implementation.call(this, text, pattern, replacement, most);
    },
    b.replace.signature,
  );
  for (const [name, at] of Object.entries(PICTURE_ARGUMENT) as Array<[PictureBuiltin, number]>) {
    expression.registerFunction(
      name,
      function (this: unknown, ...args: unknown[]) {
        const picture = args[at];
        if (typeof picture === 'string' && picture.length > JSONATA_BOUNDS.pictureChars)
          throw overBound(`gave $${name} a picture of ${picture.length} characters (at most ${JSONATA_BOUNDS.pictureChars})`);
        return b[name].implementation.apply(this, args);
      },
      b[name].signature,
    );
  }
  return {
    reset() {
      state.steps = 0;
      state.chars = 0;
    },
  };
}

const bounded = new WeakMap<CompiledExpression, Promise<{ reset(): void }>>();

/** Evaluates with every bound in place (jsonata's time, depth and sequence limits, and {@link JSONATA_BOUNDS}). */
async function evaluateBounded(compiled: CompiledExpression, input: unknown): Promise<unknown> {
  let counters = bounded.get(compiled);
  if (!counters) {
    counters = bound(compiled);
    bounded.set(compiled, counters);
  }
  (await counters).reset();
  return compiled.expression.evaluate(input);
}

/** Compiles a JSONata expression; throws with the position of the problem. */
export function compileExpression(source: string): CompiledExpression {
  if (source.length > MAX_EXPRESSION_CHARS)
    throw new Error(`The JSONata expression is ${source.length} characters long; keep it under ${MAX_EXPRESSION_CHARS}.`);
  try {
    const expression = jsonata(source, { ...JSONATA_LIMITS, RegexEngine: Re2RegexEngine as unknown as RegExpConstructor });
    for (const regex of regexSources(expression.ast())) {
      try {
        re2().compile(regex.source);
      } catch (error) {
        throw Object.assign(
          new Error(
            `the regex /${regex.source}/ is not supported (${(error as Error).message}); chore expressions use RE2 syntax, without lookaround or backreferences`,
          ),
          { cause: error },
        );
      }
    }
    return { source, expression };
  } catch (error) {
    const e = error as { message?: string; position?: number };
    throw new Error(`"${source}" is not valid JSONata: ${e.message ?? String(error)}${typeof e.position === 'number' ? ` at character ${e.position}` : ''}`, {
      cause: error,
    });
  }
}

/** The verdict on a run's final output. */
export type SuccessVerdict = { result: 'true' } | { result: 'false'; reason: string } | { result: 'error'; reason: string };

/**
 * Evaluates successWhen over the run's final output. JSONata truthiness applies (a non-empty string
 * or array, a non-zero number, a non-empty object are true; a missing path is false), so
 * `status = 'done'` and `count(items) > 0` both read naturally.
 */
export async function evaluateSuccess(compiled: CompiledExpression, output: unknown): Promise<SuccessVerdict> {
  if (output === undefined) return { result: 'false', reason: `the run produced no JSON output to evaluate successWhen (${compiled.source}) against` };
  let value: unknown;
  try {
    value = await evaluateBounded(compiled, output);
  } catch (error) {
    const e = error as { message?: string };
    return { result: 'error', reason: `successWhen (${compiled.source}) failed on the output: ${e.message ?? String(error)}` };
  }
  if (jsonataTruthy(value)) return { result: 'true' };
  return {
    result: 'false',
    reason: `successWhen (${compiled.source}) was ${value === undefined ? 'not satisfied (no match)' : JSON.stringify(value)} for output ${preview(output)}`,
  };
}

/** The condition of a task trigger, over what `onDidEndTaskProcess` reports. */
export async function evaluateTaskCondition(compiled: CompiledExpression | undefined, event: { name: string; exitCode: number | undefined }): Promise<boolean> {
  if (!compiled) return true;
  try {
    // No exit code (the task was terminated) leaves `exitCode` out, so `exitCode != 0` is false:
    // stopping a build by hand is not a failed build.
    return jsonataTruthy(await evaluateBounded(compiled, { name: event.name, ...(event.exitCode !== undefined ? { exitCode: event.exitCode } : {}) }));
  } catch {
    // A condition that cannot be evaluated for this event does not fire the chore.
    return false;
  }
}

/**
 * A run's final output (docs/DESIGN.md §7): the `output` argument of task_end, or failing that the last
 * message parsed as JSON (a fenced ```json block is accepted). Undefined when there is none.
 */
export function finalOutput(taskEndOutput: unknown, lastMessage: string | undefined): unknown {
  if (taskEndOutput !== undefined && taskEndOutput !== null) {
    if (typeof taskEndOutput !== 'string') return taskEndOutput;
    const parsed = parseJson(taskEndOutput);
    return parsed === undefined ? taskEndOutput : parsed;
  }
  if (!lastMessage) return undefined;
  const fenced = /```(?:json)?\s*\n([\s\S]*?)```/i.exec(lastMessage);
  return parseJson(fenced ? fenced[1] : lastMessage);
}

function parseJson(text: string): unknown {
  try {
    return JSON.parse(text.trim()) as unknown;
  } catch {
    return undefined;
  }
}

/** JSONata's $boolean casting rules. */
export function jsonataTruthy(value: unknown): boolean {
  if (value === undefined || value === null) return false;
  if (typeof value === 'boolean') return value;
  if (typeof value === 'number') return value !== 0 && !Number.isNaN(value);
  if (typeof value === 'string') return value.length > 0;
  if (Array.isArray(value)) return value.some(jsonataTruthy);
  if (typeof value === 'function') return false;
  if (typeof value === 'object') return Object.keys(value).length > 0;
  return false;
}

function preview(value: unknown): string {
  const text = JSON.stringify(value) ?? String(value);
  return text.length > 200 ? `${text.slice(0, 200)}…` : text;
}
