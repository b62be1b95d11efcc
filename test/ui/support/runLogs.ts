import * as fs from 'node:fs';
import * as path from 'node:path';

/**
 * The last warnings and errors Tasklane logged in a run (at most `perLog` per log file): when a run
 * fails on another machine (CI) and its folder is out of reach, the output still says what the
 * extension saw.
 */
export function tasklaneWarnings(runDir: string, perLog = 20): string {
  return tasklaneLogs(runDir)
    .map((file) => {
      const lines = fs
        .readFileSync(file, 'utf8')
        .split('\n')
        .filter((l) => /\[(warning|error)\]/.test(l))
        .slice(-perLog);
      return lines.length ? `[ui] ${path.relative(runDir, file)}, its last warnings and errors:\n${lines.map((l) => `    ${l}`).join('\n')}\n` : '';
    })
    .join('');
}

/** How many lines of every Tasklane log of the run match `pattern` (to wait for what the host logs). */
export function tasklaneLogCount(runDir: string, pattern: RegExp): number {
  return tasklaneLogs(runDir).reduce(
    (n, file) =>
      n +
      fs
        .readFileSync(file, 'utf8')
        .split('\n')
        .filter((l) => pattern.test(l)).length,
    0,
  );
}

/** The Tasklane.log of each window's extension host in the run. */
function tasklaneLogs(runDir: string): string[] {
  const logs: string[] = [];
  const look = (dir: string, depth: number) => {
    for (const entry of fs.existsSync(dir) ? fs.readdirSync(dir, { withFileTypes: true }) : []) {
      const full = path.join(dir, entry.name);
      if (entry.isDirectory() && depth > 0) look(full, depth - 1);
      else if (entry.name === 'Tasklane.log') logs.push(full);
    }
  };
  look(path.join(runDir, 'user-data', 'logs'), 4);
  return logs;
}
