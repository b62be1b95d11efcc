import * as dns from 'node:dns';
import * as http from 'node:http';
import * as https from 'node:https';
import { isIP } from 'node:net';
import type SMTPTransport from 'nodemailer/lib/smtp-transport';
import type { Logger } from '../ports';
import { emailText, escalationTitle, slackMessage } from './escalationPayload';
import type { EscalationPayload } from './escalationPayload';
import type { EscalationChannels } from './types';
import { addressProblem } from './webhookAddress';

/** Secrets by name; the host backs it with VS Code's SecretStorage. */
export interface SecretPort {
  getSecret(name: string): Promise<string | undefined>;
}

export type EscalationChannel = 'slack' | 'webhook' | 'email';

/** A channel that could not deliver; the message says what to fix. */
export class EscalationError extends Error {
  constructor(
    readonly channel: EscalationChannel,
    message: string,
    readonly details: { status?: number; cause?: unknown } = {},
  ) {
    super(message, details.cause !== undefined ? { cause: details.cause } : undefined);
    this.name = 'EscalationError';
  }
}

export interface EscalationOptions {
  secrets: SecretPort;
  logger: Logger;
  /** Per-channel time limit (default 10 s). */
  timeoutMs?: number;
  /** Sender for email when the chore gives no `from`. */
  defaultFrom?: string;
}

export interface EscalationResult {
  channel: EscalationChannel;
  ok: boolean;
  error?: EscalationError;
}

/**
 * Sends the payload to every configured channel, each independently: one broken channel does not
 * stop the others, and every failure comes back as an {@link EscalationError}. Sending is an
 * irreversible action, so the runner records its intent in the ledger before calling this.
 */
export async function sendEscalation(channels: EscalationChannels, payload: EscalationPayload, options: EscalationOptions): Promise<EscalationResult[]> {
  const jobs: Array<[EscalationChannel, () => Promise<void>]> = [];
  if (channels.slack) jobs.push(['slack', () => sendSlack(channels.slack!, payload, options)]);
  if (channels.webhook) jobs.push(['webhook', () => sendWebhook(channels.webhook!, payload, options)]);
  if (channels.email) jobs.push(['email', () => sendEmail(channels.email!, payload, options)]);
  return Promise.all(
    jobs.map(async ([channel, send]) => {
      try {
        await send();
        options.logger.info('CHORE', `escalated run ${payload.runId} of ${payload.chore.id} via ${channel}`);
        return { channel, ok: true };
      } catch (error) {
        const e =
          error instanceof EscalationError ? error : new EscalationError(channel, `${channel} escalation failed: ${errorText(error)}`, { cause: error });
        options.logger.error('CHORE', `escalation of run ${payload.runId} via ${channel} failed: ${e.message}`);
        return { channel, ok: false, error: e };
      }
    }),
  );
}

async function resolveSecret(channel: EscalationChannel, name: string, what: string, secrets: SecretPort): Promise<string> {
  const value = await secrets.getSecret(name);
  if (!value)
    throw new EscalationError(
      channel,
      `the secret "${name}" (${what}) is not set; store it with "Tasklane: Set Secret" under that name, or fix the name in .tasklane/chores.yaml`,
    );
  return value;
}

export async function sendSlack(slack: NonNullable<EscalationChannels['slack']>, payload: EscalationPayload, options: EscalationOptions): Promise<void> {
  const url = await resolveSecret('slack', slack.urlSecret, 'the Slack incoming webhook URL', options.secrets);
  await postJson('slack', url, slackMessage(payload), options.timeoutMs ?? 10_000);
}

export async function sendWebhook(webhook: NonNullable<EscalationChannels['webhook']>, payload: EscalationPayload, options: EscalationOptions): Promise<void> {
  const url = webhook.url ?? (await resolveSecret('webhook', webhook.urlSecret!, 'the webhook URL', options.secrets));
  await postJson('webhook', url, payload, options.timeoutMs ?? 10_000);
}

export async function sendEmail(email: NonNullable<EscalationChannels['email']>, payload: EscalationPayload, options: EscalationOptions): Promise<void> {
  const smtpUrl = await resolveSecret('email', email.smtpSecret, 'the SMTP URL, e.g. smtps://user:password@smtp.example.com:465', options.secrets);
  if (!/^smtps?:\/\//i.test(smtpUrl))
    throw new EscalationError('email', `the secret "${email.smtpSecret}" must be an SMTP URL such as smtps://user:password@smtp.example.com:465`);
  const timeoutMs = options.timeoutMs ?? 10_000;
  const timeouts: SMTPTransport.Options = { connectionTimeout: timeoutMs, greetingTimeout: timeoutMs, socketTimeout: timeoutMs };
  // Loaded when a chore first escalates by email, not at activation (esbuild.js makes it its own file).
  const { createTransport } = await import('nodemailer');
  const transport = createTransport(smtpUrl, timeouts);
  try {
    await transport.sendMail({
      from: email.from ?? options.defaultFrom ?? 'Tasklane <tasklane@localhost>',
      to: email.to,
      subject: `${escalationTitle(payload)}: ${payload.reason}`.slice(0, 200),
      text: emailText(payload),
      // The structured payload rides along so a mail rule or a script can act on it.
      attachments: [{ filename: 'escalation.json', content: JSON.stringify(payload, null, 2), contentType: 'application/json' }],
    });
  } catch (error) {
    const host = safeHost(smtpUrl);
    throw new EscalationError(
      'email',
      `sending mail through ${host} failed: ${errorText(error)}; check the SMTP URL in secret "${email.smtpSecret}" and that the server is reachable`,
      { cause: error },
    );
  } finally {
    transport.close();
  }
}

async function postJson(channel: EscalationChannel, url: string, body: unknown, timeoutMs: number): Promise<void> {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    throw new EscalationError(channel, `the ${channel} URL is not a valid URL; check it in .tasklane/chores.yaml or the secret that holds it`);
  }
  if (parsed.protocol !== 'http:' && parsed.protocol !== 'https:')
    throw new EscalationError(channel, `the ${channel} URL must be http or https, not ${parsed.protocol}`);
  // Never echo a URL that may carry a token: name the host only.
  const where = parsed.host;
  const literal = parsed.hostname.replace(/^\[|\]$/g, '');
  // An IP literal never goes through the lookup below: judge it here (webhookAddress.ts says what is refused).
  const literalProblem = isIP(literal) ? addressProblem(literal) : undefined;
  if (literalProblem) throw new EscalationError(channel, `${channel} POST to ${where} refused: ${literalProblem}`);
  const answer = await new Promise<{ status: number; text: string }>((resolve, reject) => {
    const send = parsed.protocol === 'https:' ? https.request : http.request;
    const request = send(parsed, { method: 'POST', headers: { 'content-type': 'application/json' }, lookup: guardedLookup, timeout: timeoutMs }, (response) => {
      let text = '';
      response.setEncoding('utf8');
      // Only the first 200 characters are ever shown; the rest is drained, not kept.
      response.on('data', (chunk: string) => {
        if (text.length < 200) text += chunk;
      });
      response.on('end', () => resolve({ status: response.statusCode ?? 0, text: text.slice(0, 200) }));
      response.on('error', reject);
    });
    request.on('timeout', () => request.destroy(Object.assign(new Error('timeout'), { name: 'TimeoutError' })));
    request.on('error', reject);
    request.end(JSON.stringify(body));
  }).catch((error: unknown) => {
    const e = error as { name?: string; refused?: string };
    if (e.refused) throw new EscalationError(channel, `${channel} POST to ${where} refused: ${e.refused}`, { cause: error });
    throw new EscalationError(
      channel,
      e.name === 'TimeoutError'
        ? `${channel} POST to ${where} timed out after ${timeoutMs} ms; check that the endpoint is up`
        : `${channel} POST to ${where} failed: ${errorText(error)}; check the URL and the network`,
      { cause: error },
    );
  });
  if (answer.status >= 300 && answer.status < 400) {
    throw new EscalationError(
      channel,
      `${channel} POST to ${where} answered a redirect (${answer.status}); redirects are not followed: put the final URL in the chore`,
      { status: answer.status },
    );
  }
  if (answer.status < 200 || answer.status >= 300) {
    throw new EscalationError(
      channel,
      `${channel} POST to ${where} answered ${answer.status}${answer.text ? ` (${answer.text})` : ''}; check the URL${channel === 'slack' ? ' (a revoked Slack webhook answers 404 or 410)' : ''}`,
      { status: answer.status },
    );
  }
}

/** dns.lookup that refuses addresses webhookAddress.ts refuses, so the socket never connects to one. */
const guardedLookup: NonNullable<http.RequestOptions['lookup']> = (hostname, options, callback) => {
  dns.lookup(hostname, { ...options, all: true }, (error, addresses) => {
    if (error) return callback(error, '', 0);
    const list = addresses as dns.LookupAddress[];
    const refused = list.map((a) => addressProblem(a.address)).find(Boolean);
    if (refused)
      return callback(
        Object.assign(new Error(`${hostname} resolves to ${refused}`), { code: 'EREFUSED', refused: `${hostname} resolves to ${refused}` }),
        '',
        0,
      );
    if ((options as { all?: boolean }).all) return (callback as unknown as (e: null, a: dns.LookupAddress[]) => void)(null, list);
    const first = list[0];
    if (!first) return callback(Object.assign(new Error(`${hostname} has no address`), { code: 'ENOTFOUND' }), '', 0);
    callback(null, first.address, first.family);
  });
};

function safeHost(url: string): string {
  try {
    return new URL(url).host;
  } catch {
    return 'the SMTP server';
  }
}

function errorText(error: unknown): string {
  if (error instanceof Error) {
    const cause = (error as { cause?: unknown }).cause;
    return cause instanceof Error ? `${error.message} (${cause.message})` : error.message;
  }
  return String(error);
}
