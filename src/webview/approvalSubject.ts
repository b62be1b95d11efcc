import type { ApprovalView } from '../shared/approvalProtocol';
import { word } from './words';

/** What an approval asks about, for the names of its buttons: "the edit to src/greet.js". */
export function approvalSubject(approval: Pick<ApprovalView, 'kind' | 'files' | 'command'>): string {
  if (approval.kind === 'edits') {
    const paths = approval.files.map((f) => (f.newPath ? `${f.path} → ${f.newPath}` : f.path));
    return paths.length === 1 ? word('approvalSubjectEdit', paths[0]!) : word('approvalSubjectEdits', paths.length, paths.join(', '));
  }
  if (approval.kind === 'task') return word('approvalSubjectTask', approval.command ?? '').trim();
  if (approval.kind === 'mcp') return word('approvalSubjectMcp', approval.command ?? '').trim();
  return approval.command ? word('approvalSubjectCommand', approval.command) : word('approvalSubjectSomeCommand');
}
