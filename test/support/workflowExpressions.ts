/**
 * GitHub Actions expressions, as much as the workflow runner needs to decide a job's or a step's
 * `if:` and to fill `${{ … }}` in `env:` / `with:` values: literals, context paths, `!`, `&&`,
 * `||`, `==`, `!=`, parentheses, and the functions always/success/failure/cancelled, contains,
 * startsWith, fromJSON. Semantics follow GitHub's docs: `&&`/`||` return an operand, string
 * comparison ignores case, and an unknown construct throws (the test then says what is missing).
 */

export type Context = Record<string, unknown>;
export interface Status {
  /** Whether every earlier step (or needed job) succeeded. */
  success: boolean;
  cancelled: boolean;
}

type Token = { kind: 'str' | 'num' | 'ident' | 'op'; value: string };

function tokenize(text: string): Token[] {
  const tokens: Token[] = [];
  let i = 0;
  while (i < text.length) {
    const rest = text.slice(i);
    const space = /^\s+/.exec(rest);
    if (space) {
      i += space[0].length;
      continue;
    }
    if (rest.startsWith("'")) {
      let j = 1;
      let value = '';
      for (;;) {
        if (j >= rest.length) throw new Error(`unterminated string in ${text}`);
        if (rest[j] === "'" && rest[j + 1] === "'") {
          value += "'";
          j += 2;
        } else if (rest[j] === "'") break;
        else value += rest[j++];
      }
      tokens.push({ kind: 'str', value });
      i += j + 1;
      continue;
    }
    const op = /^(&&|\|\||==|!=|!|\(|\)|,)/.exec(rest);
    if (op) {
      tokens.push({ kind: 'op', value: op[0] });
      i += op[0].length;
      continue;
    }
    const num = /^-?\d+(\.\d+)?/.exec(rest);
    if (num) {
      tokens.push({ kind: 'num', value: num[0] });
      i += num[0].length;
      continue;
    }
    const ident = /^[A-Za-z_][A-Za-z0-9_-]*(\.[A-Za-z_][A-Za-z0-9_-]*)*/.exec(rest);
    if (ident) {
      tokens.push({ kind: 'ident', value: ident[0] });
      i += ident[0].length;
      continue;
    }
    throw new Error(`cannot read the expression at "${rest}" in ${text}`);
  }
  return tokens;
}

/** Evaluates one expression (without `${{ }}`). */
export function evaluate(text: string, context: Context, status: Status = { success: true, cancelled: false }): unknown {
  const tokens = tokenize(text);
  let pos = 0;
  const peek = () => tokens[pos];
  const take = (value?: string) => {
    const token = tokens[pos++];
    if (!token || (value !== undefined && token.value !== value)) throw new Error(`expected ${value ?? 'a token'} in ${text}`);
    return token;
  };
  const or = (): unknown => {
    let left = and();
    while (peek()?.value === '||') {
      take();
      const right = and();
      left = truthy(left) ? left : right;
    }
    return left;
  };
  const and = (): unknown => {
    let left = compare();
    while (peek()?.value === '&&') {
      take();
      const right = compare();
      left = truthy(left) ? right : left;
    }
    return left;
  };
  const compare = (): unknown => {
    const left = unary();
    const op = peek()?.value;
    if (op === '==' || op === '!=') {
      take();
      const equal = looselyEqual(left, unary());
      return op === '==' ? equal : !equal;
    }
    return left;
  };
  const unary = (): unknown => {
    if (peek()?.value === '!') {
      take();
      return !truthy(unary());
    }
    return primary();
  };
  const primary = (): unknown => {
    const token = take();
    if (token.kind === 'str') return token.value;
    if (token.kind === 'num') return Number(token.value);
    if (token.value === '(') {
      const value = or();
      take(')');
      return value;
    }
    if (token.kind !== 'ident') throw new Error(`unexpected ${token.value} in ${text}`);
    if (token.value === 'true' || token.value === 'false') return token.value === 'true';
    if (token.value === 'null') return null;
    if (peek()?.value === '(') {
      take('(');
      const args: unknown[] = [];
      while (peek()?.value !== ')') {
        args.push(or());
        if (peek()?.value === ',') take(',');
      }
      take(')');
      return call(token.value, args, status);
    }
    return token.value
      .split('.')
      .reduce<unknown>((value, key) => (value && typeof value === 'object' ? (value as Record<string, unknown>)[key] : undefined), context);
  };
  const value = or();
  if (pos !== tokens.length) throw new Error(`unexpected ${tokens[pos]?.value} in ${text}`);
  return value;
}

function call(name: string, args: unknown[], status: Status): unknown {
  switch (name) {
    case 'always':
      return true;
    case 'success':
      return status.success && !status.cancelled;
    case 'failure':
      return !status.success;
    case 'cancelled':
      return status.cancelled;
    case 'contains':
      return Array.isArray(args[0]) ? args[0].some((item) => looselyEqual(item, args[1])) : lower(args[0]).includes(lower(args[1]));
    case 'startsWith':
      return lower(args[0]).startsWith(lower(args[1]));
    case 'fromJSON':
      return JSON.parse(String(args[0])) as unknown;
    default:
      throw new Error(`the runner does not know the function ${name}()`);
  }
}

function lower(value: unknown): string {
  return value === undefined || value === null ? '' : String(value).toLowerCase();
}

function looselyEqual(a: unknown, b: unknown): boolean {
  if (typeof a === 'string' && typeof b === 'string') return a.toLowerCase() === b.toLowerCase();
  if ((a === undefined || a === null) && (b === undefined || b === null)) return true;
  if (typeof a === 'number' || typeof b === 'number') return Number(a ?? '') === Number(b ?? '');
  return a === b;
}

export function truthy(value: unknown): boolean {
  return !(value === undefined || value === null || value === false || value === 0 || value === '' || Number.isNaN(value));
}

/** A job's or a step's `if:`: an expression, optionally in `${{ }}`; absent means success(). */
export function condition(text: string | undefined, context: Context, status: Status): boolean {
  if (text === undefined) return status.success && !status.cancelled;
  const inner = /^\s*\$\{\{([\s\S]*)\}\}\s*$/.exec(text)?.[1] ?? text;
  // A condition that calls none of the status functions has an implicit success() && in front.
  const explicit = /\b(always|success|failure|cancelled)\(/.test(inner);
  return (explicit || (status.success && !status.cancelled)) && truthy(evaluate(inner, context, status));
}

/** A value with `${{ … }}` parts filled in. */
export function interpolate(text: string, context: Context): string {
  return text.replace(/\$\{\{([\s\S]*?)\}\}/g, (_, expr: string) => {
    const value = evaluate(expr, context);
    return value === undefined || value === null ? '' : typeof value === 'object' ? JSON.stringify(value) : String(value);
  });
}
