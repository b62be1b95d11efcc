import type { ApprovalView } from '../shared/approvalProtocol';

/** What an approval asks about, for the names of its buttons: "the edit to src/greet.js". */
export function approvalSubject(approval: Pick<ApprovalView, 'kind' | 'files' | 'command'>): string {
  if (approval.kind === 'edits') {
    const paths = approval.files.map((f) => (f.newPath ? `${f.path} → ${f.newPath}` : f.path));
    return paths.length === 1 ? `the edit to ${paths[0]}` : `the edits to ${paths.length} files: ${paths.join(', ')}`;
  }
  if (approval.kind === 'task') return `running task ${approval.command ?? ''}`.trim();
  if (approval.kind === 'mcp') return `the MCP call ${approval.command ?? ''}`.trim();
  return `running ${approval.command ?? 'the command'}`;
}
