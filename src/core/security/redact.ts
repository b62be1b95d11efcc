/**
 * One place that removes secrets from what Tasklane writes down or sends on: per-task event
 * streams, EVENT.md, chore run traces and escalation payloads. Two kinds of secret are removed:
 *
 * - values Tasklane knows are secret (API keys and chore secrets read from SecretStorage, the
 *   model keys in the environment): replaced wherever they appear, whatever their shape;
 * - common credential shapes (CREDENTIAL_SHAPES): AWS keys, GitHub / OpenAI / Anthropic / Slack /
 *   Stripe / Google tokens, private key blocks, bearer tokens, JWTs, Slack webhook URLs,
 *   passwords in URLs and `secret = value` assignments.
 *
 * The event stream is also the model's history, so from the next turn on the model sees
 * `[REDACTED:…]` instead of the value: a credential read once is not re-sent to the provider with
 * every later request, nor kept in plain text in the workspace storage.
 */

/** A credential shape: replaced by `[REDACTED:<name>]` (keeping `keep`'s group 1, e.g. the variable name). */
interface Shape {
  name: string;
  pattern: RegExp;
  /** When set, group 1 is kept and only the rest is replaced. */
  keepPrefix?: boolean;
}

/**
 * The shapes. Each is anchored on a literal prefix or a bounded character class, so matching stays
 * linear on long lines (these run on every event).
 */
export const CREDENTIAL_SHAPES: readonly Shape[] = [
  { name: 'private-key', pattern: /-----BEGIN [A-Z0-9 ]{0,40}PRIVATE KEY( BLOCK)?-----[\s\S]*?(-----END [A-Z0-9 ]{0,40}PRIVATE KEY( BLOCK)?-----|$)/g },
  { name: 'aws-access-key', pattern: /\b(?:AKIA|ASIA|ABIA|ACCA|AGPA|AIDA|AIPA|ANPA|ANVA|AROA|APKA)[0-9A-Z]{16}\b/g },
  { name: 'github-token', pattern: /\b(?:gh[pousr]_[A-Za-z0-9]{30,255}|github_pat_[A-Za-z0-9_]{22,255})\b/g },
  { name: 'anthropic-key', pattern: /\bsk-ant-[A-Za-z0-9_-]{20,}/g },
  { name: 'openai-key', pattern: /\bsk-(?:proj-|svcacct-|admin-)?[A-Za-z0-9_-]{20,}/g },
  { name: 'stripe-key', pattern: /\b(?:sk|rk)_(?:live|test)_[A-Za-z0-9]{10,}/g },
  { name: 'slack-token', pattern: /\bxox[abposr]-[A-Za-z0-9-]{10,}/g },
  { name: 'slack-webhook', pattern: /https:\/\/hooks\.slack\.com\/(?:services|workflows|triggers)\/[A-Za-z0-9/_-]+/g },
  { name: 'google-api-key', pattern: /\bAIza[0-9A-Za-z_-]{35}\b/g },
  { name: 'jwt', pattern: /\beyJ[A-Za-z0-9_-]{10,}\.eyJ[A-Za-z0-9_-]{10,}\.[A-Za-z0-9_-]{10,}/g },
  { name: 'bearer-token', pattern: /(\b(?:Bearer|Token)\s+)[A-Za-z0-9._~+/=-]{16,}/gi, keepPrefix: true },
  { name: 'url-password', pattern: /(\b[a-z][a-z0-9+.-]{1,20}:\/\/[^\s:/@]{1,100}:)[^\s@/]{1,200}(?=@)/gi, keepPrefix: true },
  {
    name: 'secret-assignment',
    // `aws_secret_access_key = …`, `PASSWORD: …`, `"api_key": "…"`: the name stays, the value goes.
    pattern:
      /(\b[A-Za-z0-9_.-]{0,40}(?:secret|password|passwd|token|api[_-]?key|access[_-]?key|private[_-]?key)(?:[_-]?(?:key|value|token|id))?["']?\s{0,5}[:=]\s{0,5}["']?)(?![\s"']|\[REDACTED)[^\s"',;]{6,}/gi,
    keepPrefix: true,
  },
];

/** Secrets shorter than this are not replaced by value (they would match ordinary text); shapes still apply. */
const MIN_SECRET_CHARS = 8;

/** Redacts known secret values and credential shapes; one per extension host, shared by every writer. */
export class Redactor {
  private readonly secrets = new Set<string>();
  private ordered: string[] = [];

  /** Remembers a value to redact wherever it appears (SecretStorage reads, environment keys). */
  addSecret(value: string | undefined | null): void {
    const secret = value?.trim();
    if (!secret || secret.length < MIN_SECRET_CHARS || this.secrets.has(secret)) return;
    this.secrets.add(secret);
    // Longest first, so a secret containing another is replaced whole.
    this.ordered = [...this.secrets].sort((a, b) => b.length - a.length);
  }

  /** The text with every known secret and credential shape replaced, in plain or JSON-escaped spelling. */
  redact(text: string): string {
    let out = text;
    for (const secret of this.ordered) if (out.includes(secret)) out = out.split(secret).join('[REDACTED:secret]');
    out = redactShapes(out);
    return out.includes('\\') ? redactEscaped(out, (decoded) => [...this.secretSpans(decoded), ...shapeSpans(decoded)]) : out;
  }

  private secretSpans(text: string): Span[] {
    const spans: Span[] = [];
    for (const secret of this.ordered) {
      for (let at = text.indexOf(secret); at !== -1; at = text.indexOf(secret, at + secret.length))
        spans.push({ start: at, end: at + secret.length, name: 'secret' });
    }
    return spans;
  }

  /** Redacts every string inside a JSON-like value (a new value; the argument is untouched). */
  redactValue<T>(value: T): T {
    return redactDeep(value, (text) => this.redact(text)) as T;
  }
}

/** Credential shapes only (no known values): for places that have no Redactor. Plain or JSON-escaped spelling. */
export function redactCredentials(text: string): string {
  const out = redactShapes(text);
  return out.includes('\\') ? redactEscaped(out, shapeSpans) : out;
}

function redactShapes(text: string): string {
  let out = text;
  for (const shape of CREDENTIAL_SHAPES) {
    shape.pattern.lastIndex = 0;
    out = out.replace(shape.pattern, (...match: string[]) => (shape.keepPrefix ? `${match[1]}[REDACTED:${shape.name}]` : `[REDACTED:${shape.name}]`));
  }
  return out;
}

/** Where a secret lies in a text (end exclusive), and what it is. */
interface Span {
  start: number;
  end: number;
  name: string;
}

function shapeSpans(text: string): Span[] {
  const spans: Span[] = [];
  for (const shape of CREDENTIAL_SHAPES) {
    const pattern = new RegExp(shape.pattern.source, shape.pattern.flags);
    for (let m = pattern.exec(text); m; m = pattern.exec(text)) {
      if (m[0].length === 0) pattern.lastIndex += 1;
      else spans.push({ start: m.index + (shape.keepPrefix ? (m[1]?.length ?? 0) : 0), end: m.index + m[0].length, name: shape.name });
    }
  }
  return spans;
}

/** A JSON string escape: `\/`, `\"`, `\\`, `\n`… or `\u002d`. */
const JSON_ESCAPE = /\\(?:u[0-9a-fA-F]{4}|["\\/bfnrt])/g;
const SIMPLE_ESCAPES: Record<string, string> = { b: '\b', f: '\f', n: '\n', r: '\r', t: '\t' };

/**
 * Redacts secrets written with JSON escapes (a tool call's raw arguments: `https:\/\/hooks…`,
 * `sk\u002dant…`): decodes the escapes, finds the secrets in the decoded text, and replaces the
 * raw text they came from. Linear in the text (one pass to decode, the spans' own pass).
 */
function redactEscaped(text: string, spansOf: (decoded: string) => Span[]): string {
  let decoded = '';
  /** at[i]: where decoded character i starts in `text`; at[decoded.length] = text.length. */
  const at: number[] = [];
  let i = 0;
  JSON_ESCAPE.lastIndex = 0;
  for (let m = JSON_ESCAPE.exec(text); m; m = JSON_ESCAPE.exec(text)) {
    if (m.index > i) {
      decoded += text.slice(i, m.index);
      for (let k = i; k < m.index; k++) at.push(k);
    }
    const e = m[0][1]!;
    decoded += e === 'u' ? String.fromCharCode(Number.parseInt(m[0].slice(2), 16)) : (SIMPLE_ESCAPES[e] ?? e);
    at.push(m.index);
    i = m.index + m[0].length;
  }
  if (i === 0 && at.length === 0) return text;
  decoded += text.slice(i);
  for (let k = i; k < text.length; k++) at.push(k);
  at.push(text.length);
  const spans = spansOf(decoded).sort((a, b) => a.start - b.start || b.end - a.end);
  if (spans.length === 0) return text;
  let out = '';
  let from = 0;
  for (const span of spans) {
    const start = at[span.start]!;
    if (start < from) continue; // inside a span already replaced
    out += `${text.slice(from, start)}[REDACTED:${span.name}]`;
    from = at[span.end]!;
  }
  return out + text.slice(from);
}

/** Applies `redact` to every string inside a JSON-like value (returns a new value). */
export function redactDeep(value: unknown, redact: (text: string) => string): unknown {
  if (typeof value === 'string') return redact(value);
  if (Array.isArray(value)) return value.map((item) => redactDeep(item, redact));
  if (value && typeof value === 'object') {
    return Object.fromEntries(Object.entries(value as Record<string, unknown>).map(([key, item]) => [key, redactDeep(item, redact)]));
  }
  return value;
}

/** Environment variables whose values are model keys Tasklane itself may use (also removed from commands). */
export const MODEL_KEY_VARIABLES: readonly string[] = [
  'OPENAI_API_KEY',
  'ANTHROPIC_API_KEY',
  'AZURE_OPENAI_API_KEY',
  'OPENROUTER_API_KEY',
  'GEMINI_API_KEY',
  'GOOGLE_API_KEY',
  'MISTRAL_API_KEY',
  'GROQ_API_KEY',
  'DEEPSEEK_API_KEY',
  'XAI_API_KEY',
];

/**
 * The environment for a command or task Tasklane runs: the host's, without the model keys and
 * without the names the user listed (`tasklane.commands.hiddenEnvironmentVariables`; a trailing
 * `*` matches a prefix). An approved `npm test` runs repository code, which must not read the
 * keys Tasklane was given. Names compare case-insensitively (Windows environments do).
 */
export function commandEnvironment(env: Readonly<Record<string, string | undefined>>, hidden: readonly string[] = []): Record<string, string> {
  const rules = [...MODEL_KEY_VARIABLES, ...hidden].map((name) => name.trim().toUpperCase()).filter(Boolean);
  const isHidden = (name: string) => {
    const upper = name.toUpperCase();
    return rules.some((rule) => (rule.endsWith('*') ? upper.startsWith(rule.slice(0, -1)) : upper === rule));
  };
  const out: Record<string, string> = {};
  for (const [name, value] of Object.entries(env)) if (value !== undefined && !isHidden(name)) out[name] = value;
  return out;
}

/** The names `commandEnvironment` removes from `env` (for the terminal's `env: { NAME: null }` form). */
export function hiddenVariableNames(env: Readonly<Record<string, string | undefined>>, hidden: readonly string[] = []): string[] {
  const kept = commandEnvironment(env, hidden);
  return Object.keys(env).filter((name) => !(name in kept));
}
