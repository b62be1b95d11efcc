import * as fs from 'node:fs';
import * as path from 'node:path';

/**
 * Real GitHub webhook payloads from the `@octokit/webhooks-examples` package (the community's
 * recorded examples), never hand-written ones: a test may only make small edits to a copy (the
 * sender's login, a conclusion). The package is a devDependency; a folder holding its
 * `api.github.com/index.json` can also be given in TASKLANE_WEBHOOK_EXAMPLES. A missing package
 * fails the test that needs it, with this message, rather than skipping it.
 */
type Examples = Array<{ name: string; examples: Array<Record<string, unknown>> }>;

let cache: Examples | undefined;

function load(): Examples {
  if (cache) return cache;
  let file: string | undefined;
  try {
    file = require.resolve('@octokit/webhooks-examples/api.github.com/index.json');
  } catch {
    const dir = process.env.TASKLANE_WEBHOOK_EXAMPLES;
    const candidates = dir
      ? [path.join(dir, 'api.github.com/index.json'), path.join(dir, 'node_modules/@octokit/webhooks-examples/api.github.com/index.json')]
      : [];
    file = candidates.find((f) => fs.existsSync(f));
  }
  if (!file)
    throw new Error(
      'the @octokit/webhooks-examples package is not installed: add it as a devDependency, or install it elsewhere and set TASKLANE_WEBHOOK_EXAMPLES to its folder',
    );
  cache = JSON.parse(fs.readFileSync(file, 'utf8')) as Examples;
  return cache;
}

/** A deep copy of the first recorded payload of `event` that `pick` accepts (default: the first one). */
export function webhookExample(event: string, pick: (payload: Record<string, unknown>) => boolean = () => true): Record<string, unknown> {
  const found = load()
    .find((e) => e.name === event)
    ?.examples.find(pick);
  if (!found) throw new Error(`@octokit/webhooks-examples has no ${event} payload matching the test's filter`);
  return structuredClone(found);
}

/** Writes a payload to a file in `dir` and returns its path (what $GITHUB_EVENT_PATH points at). */
export function writeEvent(dir: string, name: string, payload: unknown): string {
  const file = path.join(dir, `${name}-${Math.random().toString(36).slice(2)}.json`);
  fs.writeFileSync(file, JSON.stringify(payload));
  return file;
}
