// `npm start`: run Tasklane for real in code-server on the sample workspace.
//   npm start                 keep the previous run's conversations and workspace edits
//   npm start -- --fresh      start over from a clean copy of sample-workspace
//   npm start -- --no-build   use dist/ as it is
//   PORT=8080 npm start       fixed port (default: a free one)
// Model: ANTHROPIC_API_KEY or OPENAI_API_KEY in the environment selects that provider (at its
// official host, the only host an environment key is sent to); without either, the scripted
// model server runs the demo model (test/fixtures/demoModel.ts: a labelled scenario on the
// sample workspace through the real engine; no network, no key). The demo's settings go to the
// code-server user settings of this launcher only, never to the workspace.
import { spawnSync } from 'node:child_process';
import { setInterval } from 'node:timers';
import * as path from 'node:path';
import { repoRoot, startCodeServer } from './codeServer.mjs';
import { modelServerAvailable, startModelServer } from './modelServer.mjs';

function say(message) {
  process.stdout.write(`[start] ${message}\n`);
}

function mustRun(label, command, args) {
  say(label);
  const run = spawnSync(command, args, { cwd: repoRoot, stdio: 'inherit' });
  if (run.status !== 0) {
    process.stderr.write(`[start] ${label} failed (exit ${run.status ?? run.signal ?? run.error?.message}); fix that and run npm start again\n`);
    process.exit(1);
  }
}

mustRun('provisioning code-server (skipped when already there)', 'bash', [path.join(repoRoot, 'scripts/provision.sh')]);
if (!process.argv.includes('--no-build')) {
  mustRun('building the extension (skipped when dist/ was built from these sources)', process.execPath, [
    path.join(repoRoot, 'esbuild.js'),
    '--production',
    '--if-stale',
  ]);
}

let model;
const settings = {};
// The demo model needs no key; an inherited OPENAI_API_KEY is fine too: it only ever goes to api.openai.com.
const env = {};
// A real model forgets what a previous demo run set in this launcher's user settings (its server
// URL and model id, and the one command the demo allowlisted).
const forgetDemo = () =>
  Object.assign(settings, { 'tasklane.model.id': undefined, 'tasklane.model.baseUrl': undefined, 'tasklane.approval.allowedCommands': undefined });
if (process.env.ANTHROPIC_API_KEY) {
  forgetDemo();
  settings['tasklane.model.provider'] = 'anthropic';
  say('model: Anthropic (ANTHROPIC_API_KEY is set)');
} else if (process.env.OPENAI_API_KEY) {
  forgetDemo();
  settings['tasklane.model.provider'] = 'openai';
  say('model: OpenAI (OPENAI_API_KEY is set)');
} else if (modelServerAvailable()) {
  model = await startModelServer({ demo: true });
  settings['tasklane.model.provider'] = 'openai-compatible';
  settings['tasklane.model.baseUrl'] = model.openaiBaseUrl;
  // DEMO_MODEL_ID of test/fixtures/demoModel.ts: the sidebar shows the demo notice for this id.
  settings['tasklane.model.id'] = 'tasklane-demo';
  // The demo task's one command (DEMO_COMMAND), exactly: it runs without asking, as an allowlisted
  // command does for a real user. Anything else the demo ran would still ask.
  settings['tasklane.approval.allowedCommands'] = ['npm run build'];
  // The demo costs nothing: priced at 0 (an exact price, like a local model's), every view reads
  // "no charge" instead of the conservative estimate an unpriced model gets (≈$0.78 a chore run),
  // and no cost cap or "no price is known" warning trips. Set here, not in the extension's price
  // table, so no real server that happens to use this id is ever counted as free.
  settings['tasklane.model.prices'] = { 'tasklane-demo': { input: 0, output: 0, cacheRead: 0, cacheWrite: 0 } };
  // No key: the local server needs none (Tasklane sends a placeholder to OpenAI-compatible servers),
  // and OPENAI_API_KEY is never sent to an OpenAI-compatible URL (only to OpenAI's own host).
  env.TASKLANE_TEST_MODEL_URL = model.url;
  say(
    `model: Demo model — no key configured (a scripted scenario at ${model.openaiBaseUrl}); set OPENAI_API_KEY or ANTHROPIC_API_KEY, or run "Tasklane: Select Model", for a real one`,
  );
} else {
  say('model: none configured and the demo model server is missing; use "Tasklane: Select Model" in the workbench');
}

const server = await startCodeServer({
  name: 'start',
  reuse: !process.argv.includes('--fresh'),
  port: process.env.PORT ? Number(process.env.PORT) : undefined,
  settings,
  env,
});

let stopping = false;
async function shutdown() {
  if (stopping) return;
  stopping = true;
  say('stopping');
  await server.stop();
  await model?.stop();
  process.exit(0);
}
process.on('SIGINT', shutdown);
process.on('SIGTERM', shutdown);

say(`workspace: ${server.workspaceDir}`);
say(`logs: ${server.logFile}`);
process.stdout.write(`\nTasklane is running: open ${server.workbenchUrl}\n(the Tasklane icon is in the activity bar; Ctrl-C stops)\n\n`);
// Keep the event loop alive until a signal arrives.
setInterval(() => {}, 1 << 30);
