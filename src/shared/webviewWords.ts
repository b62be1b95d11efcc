import type { Translator } from './translator';

/**
 * Every word the sidebar webview shows a person, by key, in English. The host translates each with
 * vscode.l10n (`translateWebviewWords`) and puts them in the page (src/host/sidebarProvider.ts);
 * the page looks them up by key (src/webview/words.ts). scripts/l10n.mjs collects these values
 * into l10n/bundle.l10n.json with the host's own messages, so one bundle translates both.
 * `{0}`, `{1}` mark where a value goes; the translation may move them. A count that reads
 * differently for one has a key of its own for one (vscode.l10n has no plural forms).
 * To add a word: a key here, `word('key')` in the webview, then `npm run l10n`.
 */
export const WEBVIEW_WORDS = {
  // The page's frame (the host's HTML).
  pageHeading: 'Tasklane chat',
  conversation: 'Conversation',
  tasks: 'Tasks',
  messages: 'Messages',
  attachedContext: 'Attached context',
  composerPlaceholder: 'Ask Tasklane… (Enter to send, Shift+Enter for a new line, @ to attach context)',
  composerInput: 'Message',
  send: 'Send',
  transcriptEmpty: 'Ask Tasklane to do something in this workspace.',
  // The header's name for a conversation not yet started.
  newChat: 'New chat',
  // The banner.
  bannerRestricted: 'Restricted Mode: Tasklane can chat but cannot edit files, run commands or run chores until you trust this folder.',
  bannerManageTrust: 'Manage Workspace Trust',
  bannerModel: 'Model: {0}',
  bannerModelNamed: 'Model: {0} · {1}',
  chooseModel: 'Choose model…',
  // The person must never mistake the demo's answers for a real model's.
  demoNotice: 'Demo model — no key configured; choose a model to use a real one.',
  // {0}: what set it off (one of the trigger words below); {2}: the error, as it was thrown.
  deadLetterFailed: '{0} failed {1} times: {2}',
  triggerUserMessage: 'A message to Tasklane',
  triggerTaskContinuation: 'A task’s next step',
  triggerScheduled: 'A scheduled chore',
  triggerScheduledOnce: 'A chore scheduled once',
  triggerScheduledImmediate: 'A chore run now',
  triggerFileEvent: 'A file change',
  triggerTaskEvent: 'A task’s event',
  triggerApproval: 'An approval',
  triggerMemory: 'Memory upkeep',
  triggerProactive: 'A proactive check',
  triggerRestartNotice: 'A restart notice',
  triggerResume: 'A resumed task',
  triggerOther: 'A trigger ({0})',
  deadLetterRetry: 'Retry',
  // The composer.
  composerCancelReply: 'cancel',
  composerReplyingTo: 'Replying to task “{0}”',
  composerSendFailed: 'The message could not be sent; it is still in the box.',
  attachmentRemove: 'Remove',
  attachmentRemoveNamed: 'Remove {0}',
  attachmentCharacters: '{0} characters attached',
  requestFailed: 'That did not work; see the Tasklane log.',
  requestMismatch: 'The host answered {0} as if it were {1}; try again.',
  turnStop: 'Stop',
  turnStopTitle: 'Stop the running turn; what it said so far is kept',
  // A conversation's line when the model's tool calls were invalid twice: their own account follows.
  msgInvalidToolCalls: 'The model answered with invalid tool calls twice: {0}',
  stoppedMark: 'stopped',
  stoppedTitle: 'You stopped this reply; this is what it said until then.',
  // A task's state, in the one vocabulary of src/shared/taskState.ts.
  stateWorking: 'working',
  stateWaiting: 'waiting for you',
  statePaused: 'paused',
  stateVerified: 'verified',
  stateNotChecked: 'done, not checked',
  stateDone: 'done',
  stateChecksFailed: 'checks failed',
  stateFailed: 'failed',
  stateCancelled: 'cancelled',
  // Why a paused task paused (the core's PauseReason), and what its buttons do then.
  pauseBudget: 'The task reached its budget. Continue raises the limit; Cancel ends it.',
  pauseModelError: 'The model failed. Continue retries; Cancel ends the task.',
  pauseStopped: 'You stopped the task. Continue resumes it; Cancel ends it.',
  // A task's block and card.
  blockLabel: 'Task {0}: {1}',
  blockWaitingGroup: 'Waiting for you',
  taskDetails: 'Details',
  taskDetailsOf: 'Details of task {0}',
  taskTrace: 'Trace',
  gestureContinue: 'Continue',
  gestureStop: 'Stop',
  // The one word for ending a task before it is done (its state then reads cancelled).
  gestureCancel: 'Cancel',
  gestureRevert: 'Revert edits',
  gestureReply: 'Reply',
  gestureOfTask: '{0} task {1}',
  gestureStopping: 'Stops after its current step.',
  gestureCancelling: 'Cancelling…',
  gestureReverting: 'Reverting its edits…',
  // Under an ended task's summary, which still describes the edits, once all of them were undone.
  blockEditsReverted: 'Its edits were reverted: the files no longer hold them.',
  notDone: 'Not done: {0}',
  counterActions: 'actions {0}',
  counterActionsOf: 'actions {0} / {1}',
  counterTokens: 'tokens {0}',
  counterTokensOf: 'tokens {0} / {1}',
  counterCost: 'cost {0}',
  counterCostOf: 'cost {0} / {1}',
  todosDone: 'Todos {0} of {1} done',
  // The same messages as src/shared/costText.ts's costWords (test/unit/model/pricing.test.ts keeps them equal).
  costEstimated: '≈{0} estimated',
  costNoCharge: 'no charge',
  // A task's steps.
  steps: 'Steps',
  stepInProgress: 'in progress',
  stepFailed: 'failed',
  stepsHide: 'Hide steps',
  stepsShowOne: 'Show 1 step',
  stepsShow: 'Show {0} steps',
  stepsShowEarlierOne: 'Show 1 earlier step',
  stepsShowEarlier: 'Show {0} earlier steps',
  stepsControlOfTask: '{0} of task {1}',
  // What a tool call being written will do (src/webview/toolLine.ts).
  toolReading: 'Reading {0}…',
  toolReadingAny: 'Reading a file…',
  toolListing: 'Listing files…',
  toolSearchingFor: 'Searching for {0}…',
  toolSearching: 'Searching…',
  toolEditing: 'Writing an edit to {0}…',
  toolEditingAny: 'Writing an edit…',
  toolCreating: 'Writing {0}…',
  toolCreatingAny: 'Writing a new file…',
  toolDeleting: 'Proposing to delete {0}…',
  toolDeletingAny: 'Proposing to delete a file…',
  toolRenaming: 'Proposing to rename {0}…',
  toolRenamingAny: 'Proposing to rename a file…',
  toolRunning: 'Running {0}…',
  toolRunningAny: 'Preparing a command…',
  toolRunningTask: 'Running task {0}…',
  toolRunningTaskAny: 'Preparing a task run…',
  toolStartingTask: 'Starting task “{0}”…',
  toolStartingTaskAny: 'Starting a task…',
  toolTodos: 'Updating the todo list…',
  toolFinishing: 'Finishing…',
  toolWaiting: 'Planning a wait…',
  toolRemembering: 'Writing a memory note…',
  toolMcp: 'Using {0} from {1}…',
  toolWorking: 'Working…',
  // An approval on its task's block.
  approvalWaitingTitle: 'Waiting for you: {0}',
  approvalOpenDiff: 'Open diff',
  approvalOpenDiffOf: 'Open diff of {0}',
  approvalInclude: 'include',
  approvalExclude: 'exclude',
  approvalIncludeFile: 'Include {0}',
  approvalExcludeFile: 'Exclude {0}',
  approvalReasonPlaceholder: 'Reason (optional, told to the task)',
  approvalWhyReject: 'Why reject {0}',
  approvalApprove: 'Approve',
  approvalApproveNamed: 'Approve {0}',
  approvalReject: 'Reject',
  approvalRejectNamed: 'Reject {0}',
  approvalSubjectEdit: 'the edit to {0}',
  approvalSubjectEdits: 'the edits to {0} files: {1}',
  approvalSubjectTask: 'running task {0}',
  approvalSubjectMcp: 'the MCP call {0}',
  approvalSubjectCommand: 'running {0}',
  approvalSubjectSomeCommand: 'running the command',
  approvedRunning: 'Approved: running it…',
  approvedApplying: 'Approved: applying the change…',
  rejectedTold: 'Rejected; the task is told.',
  fileKindCreate: 'create',
  fileKindModify: 'modify',
  fileKindDelete: 'delete',
  fileKindRename: 'rename',
  // A reply's Markdown.
  codeCopy: 'Copy',
  codeCopied: 'Copied',
  codeInsert: 'Insert at Cursor',
  codePropose: 'Propose as Edit',
  // A code block's language when its fence names none.
  codePlainText: 'text',
  codeToolbar: '{0} code',
  codeToolbarFor: '{0} code for {1}',
  // Why a link in a reply is not a link (src/webview/markdown.ts classifyLink); {0} is a scheme or an extension's id.
  linkInertEmpty: 'Not a link: it is empty',
  linkInertAnchor: 'Not a link: an in-page anchor',
  linkInertProtocolRelative: 'Not a link: a protocol-relative link',
  linkInertQueryOnly: 'Not a link: a query-only link',
  linkInertEmptyPath: 'Not a link: it names no file',
  linkInertScheme: 'Not a link: {0}: links are not opened from replies',
  linkInertNoExtension: 'Not a link: VS Code links that name no extension (such as mcp/install) are not opened from replies',
  linkInertOtherExtension: 'Not a link: links to other extensions ({0}) are not opened from replies',
  linkOpenFile: 'Open {0}',
  imageAlt: 'image',
  imageMark: '[image: {0}]',
  imageNotLoaded: 'Image, not loaded: {0}',
  imageNotShown: 'Image not shown',
  // Task details (the trace).
  detailsClose: 'Close details',
  detailsCloseTitle: 'Close details (Escape)',
  detailsTitleNamed: 'Details: {0}',
  detailsTask: 'Task details',
  traceList: 'Action trace',
  traceSelected: 'Selected trace event',
  traceDuration: '{0} ms',
} as const;

export type WebviewWordKey = keyof typeof WEBVIEW_WORDS;
export type WebviewWords = Record<WebviewWordKey, string>;

/**
 * The catalog in the person's language: each message through `l10n.t`, `{n}` kept for the page to
 * fill. The host passes the catalog as `npm run l10n` wrote it to l10n/webview.words.json (the same
 * keys and messages as WEBVIEW_WORDS, read at run time so the English is not code in dist/main.js,
 * whose size has a budget). scripts/l10n.mjs collects WEBVIEW_WORDS' values itself: this call's
 * message is not a literal.
 */
export function translateWebviewWords(l10n: Translator, catalog: Readonly<Record<string, string>>): WebviewWords {
  return Object.fromEntries(Object.entries(catalog).map(([key, message]) => [key, l10n.t(message)])) as WebviewWords;
}
