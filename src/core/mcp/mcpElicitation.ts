/**
 * Elicitation (`elicitation/create`): a server asks the person for a few values in the middle of a
 * tool call. The request's schema is read here into fields a form can show one by one; what the
 * person types is checked here too, so every host validates the same way. The answer goes back to
 * the server only: it is not added to any model request (the server may echo it in its tool
 * result, which reaches the task like any other result). Without a person to ask (the command
 * line) the request is refused with an error that says why.
 */
import type { Logger } from '../ports';

/** One value the server asks for, as the form shows it. */
export type ElicitField = {
  /** The property name in the answer. */
  key: string;
  /** The server's title, else the key. */
  title: string;
  description?: string;
  required: boolean;
} & (
  | { kind: 'text'; format?: 'email' | 'uri' | 'date' | 'date-time'; minLength?: number; maxLength?: number; default?: string }
  | { kind: 'number'; integer: boolean; minimum?: number; maximum?: number; default?: number }
  | { kind: 'boolean'; default?: boolean }
  | { kind: 'choice'; options: ElicitOption[]; default?: string }
  | { kind: 'choices'; options: ElicitOption[]; minItems?: number; maxItems?: number; default?: string[] }
);

/** One choice of an enum: the value sent and the words shown. */
export interface ElicitOption {
  value: string;
  label: string;
}

/** What a server asks, as the person is shown it. The message and titles are the server's words: untrusted text. */
export interface ElicitationRequest {
  server: string;
  message: string;
  fields: ElicitField[];
}

export type ElicitValue = string | number | boolean | string[];

/** The person's answer: the values (accept), a refusal to give them (decline), or the form dismissed (cancel). */
export type ElicitationAnswer = { action: 'accept'; content: Record<string, ElicitValue> } | { action: 'decline' } | { action: 'cancel' };

/** The person's side of elicitation (VS Code's form). A host without a person has none. */
export interface ElicitationPort {
  /** Shows the request; `signal` fires when the server withdraws it (the call ended or was stopped). */
  elicit(request: ElicitationRequest, signal: AbortSignal): Promise<ElicitationAnswer>;
}

/** Fields per request and options per enum a form shows; a larger request is refused. */
export const ELICIT_LIMITS = { fields: 20, options: 100, textChars: 2_000 } as const;

/** Why a request cannot be shown (sent back to the server as an error). */
export class ElicitationRefused extends Error {}

/** The message when there is no one to ask. */
export function headlessRefusal(server: string): string {
  return `Tasklane runs without a person here (the command line), so it cannot ask for the input the MCP server ${server} requested; the request was refused. Give the server what it needs in the tool's arguments or its configuration.`;
}

/**
 * The fields of a requested schema (a flat object of primitives, as the protocol allows). Throws
 * {@link ElicitationRefused} for anything else, naming the property.
 */
export function elicitFields(schema: unknown): ElicitField[] {
  const object = schema as { type?: unknown; properties?: unknown; required?: unknown } | undefined;
  if (!object || object.type !== 'object' || !object.properties || typeof object.properties !== 'object')
    throw new ElicitationRefused('the requested schema must be an object with properties');
  const required = new Set(Array.isArray(object.required) ? object.required.filter((r): r is string => typeof r === 'string') : []);
  const entries = Object.entries(object.properties as Record<string, unknown>);
  if (entries.length > ELICIT_LIMITS.fields)
    throw new ElicitationRefused(`the request asks for ${entries.length} values; at most ${ELICIT_LIMITS.fields} are shown`);
  return entries.map(([key, raw]) => field(key, raw, required.has(key)));
}

function field(key: string, raw: unknown, required: boolean): ElicitField {
  const p = (raw ?? {}) as Record<string, unknown>;
  const base = {
    key,
    title: text(p.title) ?? key,
    ...(text(p.description) ? { description: text(p.description)! } : {}),
    required,
  };
  const num = (v: unknown) => (typeof v === 'number' && Number.isFinite(v) ? v : undefined);
  const options = (list: ElicitOption[]) => {
    if (list.length === 0) throw new ElicitationRefused(`the property ${key} offers no choices`);
    if (list.length > ELICIT_LIMITS.options) throw new ElicitationRefused(`the property ${key} offers over ${ELICIT_LIMITS.options} choices`);
    return list;
  };
  if (p.type === 'array') {
    const items = (p.items ?? {}) as Record<string, unknown>;
    const list = enumOptions(items);
    if (!list) throw new ElicitationRefused(`the property ${key} is a list of something other than choices`);
    return {
      ...base,
      kind: 'choices',
      options: options(list),
      ...(num(p.minItems) !== undefined ? { minItems: num(p.minItems)! } : {}),
      ...(num(p.maxItems) !== undefined ? { maxItems: num(p.maxItems)! } : {}),
      ...(Array.isArray(p.default) ? { default: p.default.filter((d): d is string => typeof d === 'string') } : {}),
    };
  }
  if (p.type === 'string') {
    const list = enumOptions(p);
    if (list) return { ...base, kind: 'choice', options: options(list), ...(typeof p.default === 'string' ? { default: p.default } : {}) };
    const format = ['email', 'uri', 'date', 'date-time'].includes(String(p.format)) ? (p.format as 'email' | 'uri' | 'date' | 'date-time') : undefined;
    return {
      ...base,
      kind: 'text',
      ...(format ? { format } : {}),
      ...(num(p.minLength) !== undefined ? { minLength: num(p.minLength)! } : {}),
      ...(num(p.maxLength) !== undefined ? { maxLength: num(p.maxLength)! } : {}),
      ...(typeof p.default === 'string' ? { default: p.default } : {}),
    };
  }
  if (p.type === 'number' || p.type === 'integer')
    return {
      ...base,
      kind: 'number',
      integer: p.type === 'integer',
      ...(num(p.minimum) !== undefined ? { minimum: num(p.minimum)! } : {}),
      ...(num(p.maximum) !== undefined ? { maximum: num(p.maximum)! } : {}),
      ...(num(p.default) !== undefined ? { default: num(p.default)! } : {}),
    };
  if (p.type === 'boolean') return { ...base, kind: 'boolean', ...(typeof p.default === 'boolean' ? { default: p.default } : {}) };
  throw new ElicitationRefused(`the property ${key} has a type a form cannot ask for (${JSON.stringify(p.type ?? null)})`);
}

/** `enum` (with the legacy `enumNames`), or `oneOf`/`anyOf` of `{const, title}`. */
function enumOptions(p: Record<string, unknown>): ElicitOption[] | undefined {
  if (Array.isArray(p.enum)) {
    const names = Array.isArray(p.enumNames) ? p.enumNames : [];
    return p.enum.map((value, i) => ({ value: String(value), label: text(names[i]) ?? String(value) }));
  }
  const alternatives = Array.isArray(p.oneOf) ? p.oneOf : Array.isArray(p.anyOf) ? p.anyOf : undefined;
  if (!alternatives) return undefined;
  return alternatives.map((a) => {
    const alt = (a ?? {}) as { const?: unknown; title?: unknown };
    return { value: String(alt.const), label: text(alt.title) ?? String(alt.const) };
  });
}

function text(value: unknown): string | undefined {
  return typeof value === 'string' && value.trim() ? value.slice(0, ELICIT_LIMITS.textChars) : undefined;
}

/**
 * What a typed answer to a text or number field means: the value to send, nothing (an optional
 * field left empty), or what is wrong with it in words for the person (the input box shows it).
 */
export function readTyped(f: ElicitField, typed: string): { value: string | number } | { skip: true } | { error: string } {
  const value = typed.trim();
  if (!value) return f.required ? { error: `${f.title} is required.` } : { skip: true };
  if (f.kind === 'number') {
    const n = Number(value);
    if (!Number.isFinite(n)) return { error: 'Enter a number.' };
    if (f.integer && !Number.isInteger(n)) return { error: 'Enter a whole number.' };
    if (f.minimum !== undefined && n < f.minimum) return { error: `Enter at least ${f.minimum}.` };
    if (f.maximum !== undefined && n > f.maximum) return { error: `Enter at most ${f.maximum}.` };
    return { value: n };
  }
  if (f.kind !== 'text') return { error: 'Pick one of the choices.' };
  if (f.minLength !== undefined && value.length < f.minLength) return { error: `Enter at least ${f.minLength} characters.` };
  if (f.maxLength !== undefined && value.length > f.maxLength) return { error: `Enter at most ${f.maxLength} characters.` };
  if (f.format === 'email' && !/^[^\s@]+@[^\s@]+\.[^\s@]+$/.test(value)) return { error: 'Enter an email address.' };
  if (f.format === 'uri' && !/^[a-z][a-z0-9+.-]*:\S+$/i.test(value)) return { error: 'Enter a full address, such as https://example.com.' };
  if (f.format === 'date' && !/^\d{4}-\d{2}-\d{2}$/.test(value)) return { error: 'Enter a date as YYYY-MM-DD.' };
  if (f.format === 'date-time' && Number.isNaN(Date.parse(value))) return { error: 'Enter a date and time, such as 2026-01-31T09:00:00Z.' };
  return { value };
}

/** The prompt a form shows for a field: its description, what is expected, and whether it may be left empty. */
export function fieldHint(f: ElicitField): string {
  const expect =
    f.kind === 'number'
      ? [f.integer ? 'a whole number' : 'a number', f.minimum !== undefined ? `from ${f.minimum}` : '', f.maximum !== undefined ? `to ${f.maximum}` : '']
          .filter(Boolean)
          .join(' ')
      : f.kind === 'text' && f.format
        ? { email: 'an email address', uri: 'an address (URI)', date: 'a date (YYYY-MM-DD)', 'date-time': 'a date and time' }[f.format]
        : '';
  return [f.description, expect ? `Expects ${expect}.` : '', f.required ? '' : 'Optional: leave empty to skip.'].filter(Boolean).join(' ');
}

/**
 * A server's `elicitation/create`: shown to the person through `port` (the host's form), refused
 * headless or when the schema is more than a form can ask. The values go back to the server only;
 * the log names the request, never what was typed.
 */
export async function answerElicitation(
  server: string,
  port: ElicitationPort | undefined,
  logger: Logger,
  params: { message: string; requestedSchema?: unknown },
  signal: AbortSignal,
): Promise<ElicitationAnswer> {
  if (!port) {
    logger.warn('HOST', `MCP server ${server} asked for input; refused (no one to ask here)`);
    throw new Error(headlessRefusal(server));
  }
  let fields: ElicitField[];
  try {
    fields = elicitFields(params.requestedSchema);
  } catch (error) {
    if (!(error instanceof ElicitationRefused)) throw error;
    logger.warn('HOST', `MCP server ${server} asked for input Tasklane cannot show: ${error.message}`);
    throw new Error(`Tasklane cannot show this request as a form: ${error.message}.`, { cause: error });
  }
  logger.info('HOST', `MCP server ${server} asks the person for ${fields.length} value(s)`);
  const answer = await port.elicit({ server, message: params.message, fields }, signal);
  logger.info('HOST', `MCP server ${server}: the person chose ${answer.action}`);
  return answer;
}
