// Runs the scripted OpenAI/Anthropic-compatible model server (test/fixtures/modelServerMain.ts) as a
// child process, and wraps its control API (POST /__script, POST /__reset, GET /__requests).
import { spawn } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import * as readline from 'node:readline';
import { setTimeout as delay } from 'node:timers/promises';
import { repoRoot } from './codeServer.mjs';

export const modelServerMain = path.join(repoRoot, 'test/fixtures/modelServerMain.ts');
const tsxCli = path.join(repoRoot, 'node_modules/tsx/dist/cli.mjs');

/** Whether the fixture exists yet (another engineer owns it). */
export function modelServerAvailable() {
  return fs.existsSync(modelServerMain);
}

/**
 * Starts the scripted model server and resolves with its URL once it printed `{"url": ...}`.
 * `options.demo`: answer unscripted requests with the demo scenario (test/fixtures/demoModel.ts).
 * `options.requireRoute`: refuse scripted steps without a `route` (see modelServer.ts, "Routing").
 * @returns {Promise<import('./modelServer.d.mts').ModelServer>}
 */
export async function startModelServer(options = {}) {
  if (!modelServerAvailable()) throw new Error(`${modelServerMain} is missing: the scripted model server has not landed yet (check git log)`);
  // --exit-on-stdin-close: if this harness dies without cleaning up, the server leaves with it.
  const child = spawn(
    process.execPath,
    [tsxCli, modelServerMain, '--exit-on-stdin-close', ...(options.demo ? ['--demo'] : []), ...(options.requireRoute ? ['--require-route'] : [])],
    {
      cwd: repoRoot,
      env: { ...process.env, ...options.env },
      detached: true,
      stdio: ['pipe', 'pipe', 'pipe'],
    },
  );
  let stderr = '';
  child.stderr.on('data', (chunk) => (stderr = (stderr + chunk).slice(-4000)));
  const exited = new Promise((resolve) => child.once('exit', resolve));

  const announced = await new Promise((resolve, reject) => {
    const lines = readline.createInterface({ input: child.stdout });
    const timer = setTimeout(() => reject(new Error(`the model server printed no {"url"} line within 30 s:\n${stderr}`)), 30_000);
    lines.on('line', (line) => {
      try {
        const parsed = JSON.parse(line);
        if (typeof parsed.url === 'string') {
          clearTimeout(timer);
          resolve(parsed);
        }
      } catch {
        // a log line, not the announcement
      }
    });
    child.once('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`the model server exited (${code}) before listening:\n${stderr}`));
    });
  }).catch(async (error) => {
    try {
      process.kill(-child.pid, 'SIGKILL');
    } catch {
      // gone
    }
    throw error;
  });
  child.stdout.resume();
  const url = announced.url;

  const control = async (method, route, body) => {
    const response = await globalThis.fetch(`${url}${route}`, {
      method,
      headers: body === undefined ? {} : { 'content-type': 'application/json' },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    if (!response.ok) throw new Error(`${method} ${route} on the model server answered ${response.status}: ${await response.text()}`);
    const text = await response.text();
    return text ? JSON.parse(text) : undefined;
  };

  return {
    url,
    openaiBaseUrl: announced.openaiBaseUrl ?? `${url}/v1`,
    anthropicBaseUrl: announced.anthropicBaseUrl ?? url,
    /** Queues scripted steps, e.g. [{ text: 'hi' }] or [{ toolCalls: [{ name, arguments }] }]. */
    script: (steps) => control('POST', '/__script', steps),
    reset: () => control('POST', '/__reset'),
    /** Lets streams held by a step's holdAfterChunks go on. */
    release: () => control('POST', '/__release'),
    /** Requests received since the last reset; with a route, only those that carry its marker. */
    requests: (route) => control('GET', route ? `/__requests?route=${encodeURIComponent(route)}` : '/__requests'),
    stop: async () => {
      try {
        process.kill(-child.pid, 'SIGTERM');
      } catch {
        return;
      }
      await Promise.race([exited, delay(3000)]);
      try {
        process.kill(-child.pid, 'SIGKILL');
      } catch {
        // gone
      }
    },
  };
}
