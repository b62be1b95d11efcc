/**
 * How a generated workflow gets the exact CLI that generated it (issue 38 item 1; review
 * ci-2026-12c W1: the workflow installed `tasklane@<version>` by name from npm, a name nobody had
 * claimed, resolving 123 dependencies by semver range).
 *
 * Decision: the CLI is published as a **release asset of this repository**,
 * `tasklane-cli-<version>.tar.gz`, holding only the zero-dependency bundle and what it loads at run
 * time ({@link CLI_FILES}). No registry and no package name is involved, so there is no name a third
 * party could claim; the workflow pins the artifact **by content**: the CLI that runs `ci github`
 * hashes its own files ({@link cliContentDigest}) and writes that digest into the workflow, and the
 * install step ({@link INSTALL_CLI_SCRIPT}) recomputes it over every file it unpacked and refuses to
 * go on when one byte, one file more or one file less differs. The URL says only where to look: a
 * team may mirror the asset (TASKLANE_CLI_URL), and a mirror serving anything else fails the job.
 *
 * Why a digest of the files rather than of the tarball: the generator is the installed CLI, which
 * has its files but not the tarball it came in (gzip and tar headers need not be reproducible), and
 * pinning what runs is what matters. The digest is sha256 over the lines `<sha256>  ./<path>\n`,
 * one per regular file, in byte order of the path: what `find . -type f | LC_ALL=C sort | xargs
 * sha256sum | sha256sum` prints on the runner, so the step needs no Tasklane code to check Tasklane.
 */
import { spawnSync } from 'node:child_process';
import * as crypto from 'node:crypto';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { UsageError } from './environment';
import { WorkflowError } from './workflowText';

/** The files of the CLI artifact, relative to its root: the launcher, the bundle, the sql.js wasm, the built-in skills. */
export const CLI_FILES = ['bin/tasklane.js', 'dist/cli.js', 'dist/sql-wasm.wasm', 'skills'] as const;

/** Where the release asset of a version is published (the project's own GitHub releases). */
export function defaultCliUrl(version: string): string {
  return `https://github.com/tasklane/tasklane/releases/download/v${version}/${cliArtifactName(version)}`;
}

/** The release asset's file name. */
export function cliArtifactName(version: string): string {
  return `tasklane-cli-${version}.tar.gz`;
}

/** Every regular file of the artifact under `root`, as `./`-relative paths in byte order. */
function artifactFiles(root: string): string[] {
  const out: string[] = [];
  const walk = (relative: string) => {
    const full = path.join(root, relative);
    const stat = fs.lstatSync(full, { throwIfNoEntry: false });
    if (!stat) throw new UsageError(`The Tasklane CLI at ${root} has no ${relative}: build it first (npm run build) or run the released CLI.`);
    if (stat.isDirectory()) for (const name of fs.readdirSync(full)) walk(path.posix.join(relative, name));
    else if (stat.isFile()) out.push(`./${relative}`);
    // A symbolic link is left out here, and the install step refuses an artifact holding one.
  };
  for (const entry of CLI_FILES) walk(entry);
  return out.sort((a, b) => Buffer.compare(Buffer.from(a), Buffer.from(b)));
}

/** The content digest of the CLI whose files are under `root` (see the header for the format). */
export function cliContentDigest(root: string): string {
  const lines = artifactFiles(root).map((file) => {
    const hash = crypto
      .createHash('sha256')
      .update(fs.readFileSync(path.join(root, file)))
      .digest('hex');
    return `${hash}  ${file}\n`;
  });
  return crypto.createHash('sha256').update(lines.join('')).digest('hex');
}

/**
 * Writes the release asset for the CLI under `root` into `outDir` and returns its path and content
 * digest. The tarball holds exactly {@link CLI_FILES}, with neutral owners and times.
 */
export function packCli(root: string, outDir: string, version: string): { file: string; digest: string } {
  const digest = cliContentDigest(root);
  fs.mkdirSync(outDir, { recursive: true });
  const file = path.join(outDir, cliArtifactName(version));
  const tar = spawnSync('tar', ['--sort=name', '--owner=0', '--group=0', '--numeric-owner', '--mtime=@0', '-czf', file, '-C', root, ...CLI_FILES], {
    encoding: 'utf8',
  });
  if (tar.error || tar.status !== 0) throw new UsageError(`Packing the CLI failed (GNU tar is needed): ${tar.error?.message ?? tar.stderr}`);
  return { file, digest };
}

/** A URL the workflow may name: http(s), no whitespace, quotes or `${`. */
export function cliUrlText(url: string): string {
  if (!/^https?:\/\/[^\s"'`$\\]+$/.test(url)) throw new WorkflowError(`TASKLANE_CLI_URL ${JSON.stringify(url)} is not an http(s) URL the workflow can name.`);
  return url;
}

/** A content digest as the workflow writes it. */
export function cliDigestText(digest: string): string {
  if (!/^[0-9a-f]{64}$/.test(digest)) throw new WorkflowError(`"${digest}" is not the sha256 content digest of a CLI.`);
  return digest;
}

/**
 * The install step's script. It reads TASKLANE_CLI_URL and TASKLANE_CLI_SHA256 from the workflow's
 * env (never `${{ }}`), unpacks into the runner's temp folder (outside every checkout), refuses an
 * artifact with anything but files and folders or whose content digest differs, and puts a
 * `tasklane` launcher first on PATH for the job's later steps. The bundle needs no `npm install`:
 * it has no dependencies to resolve.
 */
export const INSTALL_CLI_SCRIPT = [
  'dir="$RUNNER_TEMP/tasklane-cli"',
  'rm -rf "$dir" && mkdir -p "$dir/tree" "$dir/bin"',
  'curl --fail --silent --show-error --location --retry 3 --output "$dir/cli.tar.gz" "$TASKLANE_CLI_URL"',
  'tar -xzf "$dir/cli.tar.gz" -C "$dir/tree" --no-same-owner --no-same-permissions',
  'cd "$dir/tree"',
  'if [ -n "$(find . ! -type f ! -type d)" ]; then echo "::error::The Tasklane CLI artifact at $TASKLANE_CLI_URL holds links or devices; refusing it." >&2; exit 1; fi',
  'actual="$(find . -type f -print0 | LC_ALL=C sort -z | xargs -0 sha256sum | sha256sum | cut -d " " -f 1)"',
  'if [ "$actual" != "$TASKLANE_CLI_SHA256" ]; then echo "::error::The Tasklane CLI at $TASKLANE_CLI_URL has content digest $actual, not $TASKLANE_CLI_SHA256 that this workflow was generated with. Regenerate the workflow with the CLI you mean to run (tasklane chores ci github), or point TASKLANE_CLI_URL at that CLI\'s release asset." >&2; exit 1; fi',
  'printf \'#!/bin/sh\\nexec node "%s/bin/tasklane.js" "$@"\\n\' "$dir/tree" > "$dir/bin/tasklane"',
  'chmod 755 "$dir/bin/tasklane"',
  'echo "$dir/bin" >> "$GITHUB_PATH"',
].join('\n');
