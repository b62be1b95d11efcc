import { compileGlob } from '../../src/core/approval/changes/textMatch';
import type { FoundFiles, WorkspacePort } from '../../src/core/ports';

/** An in-memory workspace: a map of relative paths to contents. */
export class MemoryWorkspace implements WorkspacePort {
  readonly reads: string[] = [];

  constructor(readonly files: Record<string, string> = {}) {}

  async readFile(relativePath: string): Promise<string> {
    this.reads.push(relativePath);
    const text = this.files[relativePath.replace(/^\.\//, '')];
    if (text === undefined) throw new Error(`${relativePath} does not exist`);
    return text;
  }

  async listFiles(relativeDir: string, options: { recursive?: boolean; limit?: number } = {}): Promise<string[]> {
    const dir = relativeDir === '.' || relativeDir === '' ? '' : `${relativeDir.replace(/\/$/, '')}/`;
    const out = new Set<string>();
    for (const file of Object.keys(this.files).sort()) {
      if (!file.startsWith(dir)) continue;
      const rest = file.slice(dir.length);
      out.add(options.recursive || !rest.includes('/') ? file : `${dir}${rest.split('/')[0]}/`);
    }
    return [...out].slice(0, options.limit ?? 1000);
  }

  async searchText(
    query: string,
    options: { isRegex?: boolean; include?: string; limit?: number } = {},
  ): Promise<Array<{ path: string; line: number; text: string }>> {
    const pattern = options.isRegex ? new RegExp(query) : undefined;
    const hits: Array<{ path: string; line: number; text: string }> = [];
    for (const [path, text] of Object.entries(this.files)) {
      text.split('\n').forEach((line, index) => {
        if (pattern ? pattern.test(line) : line.includes(query)) hits.push({ path, line: index + 1, text: line });
      });
    }
    return hits.slice(0, options.limit ?? 50);
  }

  async findFiles(glob: string, options: { limit?: number } = {}): Promise<FoundFiles> {
    const matches = compileGlob(glob);
    const paths = Object.keys(this.files).sort().filter(matches);
    const limit = options.limit ?? 100;
    return { paths: paths.slice(0, limit), complete: paths.length <= limit };
  }
}
