/**
 * Process entry of the `tasklane` command (bundled to dist/cli.js). Assets ship beside the
 * bundle: dist/sql-wasm.wasm and the built-in skills/ folder one level up (the release asset's
 * layout, cliArtifact.ts). The bundle has its version built in; run from source it reads package.json.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import { runCli } from './main';

declare const TASKLANE_CLI_VERSION: string | undefined;

const wasm = path.join(__dirname, 'sql-wasm.wasm');
const assets = {
  // From a source checkout (run through tsx) sql.js finds its own wasm.
  ...(fs.existsSync(wasm) ? { wasmPath: wasm } : {}),
  skillsDir: path.resolve(__dirname, '..', 'skills'),
  // The bundle's root is one up from dist/; from source (src/cli/) ciMain.ts finds it itself.
  ...(typeof TASKLANE_CLI_VERSION === 'string' ? { version: TASKLANE_CLI_VERSION, cliRoot: path.resolve(__dirname, '..') } : {}),
};

void runCli(
  process.argv.slice(2),
  { out: (t) => process.stdout.write(t), err: (t) => process.stderr.write(t), env: process.env, cwd: process.cwd() },
  assets,
).then((code) => {
  process.exitCode = code;
});
