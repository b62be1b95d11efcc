/**
 * A command line a chore declares (`commands:` in chores.yaml), parsed into argv without a shell.
 * Quotes group words ('single' literally, "double" with \" and \\ escapes); anything a shell would
 * turn into another or a second command (pipes, chaining, redirects, substitutions, variables) is
 * refused outright, quoted or not: in VS Code the line runs in a terminal's shell, where a quoted
 * `$(...)` still runs, so the same text must be safe in both places.
 */
import { findShellConstruct } from './commandPolicy';

export type ParsedCommandLine = { argv: string[] } | { problem: string };

export function parseCommandLine(line: string): ParsedCommandLine {
  const text = line.trim();
  if (!text) return { problem: 'the command is empty' };
  const construct = findShellConstruct(text);
  if (construct) return { problem: `it contains ${construct}; a declared command runs without a shell, one program with its arguments` };
  const argv: string[] = [];
  let word: string | undefined;
  for (let i = 0; i < text.length; i++) {
    const c = text[i];
    if (c === ' ' || c === '\t') {
      if (word !== undefined) argv.push(word);
      word = undefined;
    } else if (c === "'") {
      const end = text.indexOf("'", i + 1);
      if (end < 0) return { problem: 'a single quote is not closed' };
      word = (word ?? '') + text.slice(i + 1, end);
      i = end;
    } else if (c === '"') {
      let chunk = '';
      let j = i + 1;
      for (; j < text.length && text[j] !== '"'; j++) {
        if (text[j] === '\\' && (text[j + 1] === '"' || text[j + 1] === '\\')) j++;
        chunk += text[j];
      }
      if (j >= text.length) return { problem: 'a double quote is not closed' };
      word = (word ?? '') + chunk;
      i = j;
    } else if (c === '\\') {
      return { problem: 'it contains a backslash outside quotes; quote the argument instead' };
    } else {
      word = (word ?? '') + c;
    }
  }
  if (word !== undefined) argv.push(word);
  return { argv };
}

const INLINE_CODE_FLAGS: Readonly<Record<string, readonly string[]>> = {
  node: ['-e', '--eval', '-p', '--print', '-r', '--require', '--import'],
  python: ['-c'],
  python3: ['-c'],
  bash: ['-c'],
  sh: ['-c'],
  zsh: ['-c'],
  pwsh: ['-c', '-command', '-encodedcommand'],
  powershell: ['-c', '-command', '-encodedcommand'],
  perl: ['-e', '-E'],
  ruby: ['-e'],
  deno: ['eval'],
};

/**
 * Why a declared command is an escape hatch (it can run anything, fetch anything or publish), or
 * undefined. Such a command is refused even when declared unless the chore says `unsafe: true`:
 * listing `node -e …` or `npx some-package` declares nothing about what will run.
 */
export function escapeHatch(argv: readonly string[]): string | undefined {
  const [program = '', ...args] = argv;
  const name = program
    .replace(/^.*[\\/]/, '')
    .replace(/\.(exe|cmd|bat)$/i, '')
    .toLowerCase();
  const inline = INLINE_CODE_FLAGS[name];
  if (inline && args.some((a) => inline.includes(a.toLowerCase()))) return `${name} with inline code`;
  if (name === 'npx' || name === 'pnpx' || name === 'bunx') return `${name} (runs whatever package it downloads)`;
  if ((name === 'npm' || name === 'pnpm' || name === 'yarn') && (args[0] === 'exec' || args[0] === 'dlx' || args[0] === 'x')) return `${name} ${args[0]}`;
  if (name === 'curl' || name === 'wget') return `${name} (fetches or sends anything)`;
  if (name === 'git' && args.includes('push')) return 'git push';
  if (name === 'gh' && (args[0] === 'api' || args[0] === 'auth')) return `gh ${args[0]}`;
  if (name === 'eval' || name === 'exec' || name === 'env' || name === 'xargs' || name === 'sudo') return `${name} (runs another command)`;
  return undefined;
}

/** What is wrong with a declared command line, or undefined; `unsafe` lets escape hatches through. */
export function declaredCommandProblem(line: string, unsafe = false): string | undefined {
  const parsed = parseCommandLine(line);
  if ('problem' in parsed) return parsed.problem;
  const hatch = unsafe ? undefined : escapeHatch(parsed.argv);
  return hatch ? `${hatch} is refused even when declared; set unsafe: true on the chore to allow it` : undefined;
}
