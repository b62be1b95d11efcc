/**
 * A small stand-in for the `vscode` module, so a unit test can load the host's command handlers
 * (`src/host/**`) and call them as another extension does: with arguments. It keeps what the
 * handlers register and what they show; a modal is answered by `standIn.answer` (Cancel, i.e. no
 * button, unless a test says otherwise). Only what those handlers use is here. Import it before
 * any `src/host` module: it installs itself as `vscode` for this process.
 */
import * as fs from 'node:fs';
import Module from 'node:module';
import * as path from 'node:path';
import { ENGLISH } from '../../../src/shared/translator';

/** A modal the handlers showed: its question, its detail and its buttons. */
export interface ShownModal {
  message: string;
  detail: string;
  buttons: string[];
}

type Listener = () => void;

class Disposable {
  constructor(private readonly onDispose: () => void = () => undefined) {}
  static from(...items: Array<{ dispose(): unknown }>): Disposable {
    return new Disposable(() => items.forEach((i) => i.dispose()));
  }
  dispose(): void {
    this.onDispose();
  }
}

class Uri {
  private constructor(
    readonly scheme: string,
    readonly path: string,
    readonly query = '',
  ) {}
  static file(p: string): Uri {
    return new Uri('file', p);
  }
  static from(parts: { scheme: string; path?: string; query?: string }): Uri {
    return new Uri(parts.scheme, parts.path ?? '', parts.query ?? '');
  }
  static joinPath(base: Uri, ...segments: string[]): Uri {
    return new Uri(base.scheme, path.posix.join(base.path, ...segments), base.query);
  }
  get fsPath(): string {
    return this.path;
  }
  toString(): string {
    return `${this.scheme}://${this.path}${this.query ? `?${this.query}` : ''}`;
  }
}

class RelativePattern {
  constructor(
    readonly base: unknown,
    readonly pattern: string,
  ) {}
}

class CancellationError extends Error {
  constructor() {
    super('Canceled');
  }
}

const event = (listeners: Set<Listener>) => (listener: Listener) => {
  listeners.add(listener);
  return new Disposable(() => listeners.delete(listener));
};

/** What the handlers registered and showed, and how modals are answered. */
export const standIn = {
  commands: new Map<string, (...args: unknown[]) => unknown>(),
  /** Every status bar item created, as the handlers left it. */
  statusItems: [] as Array<Record<string, unknown>>,
  modals: [] as ShownModal[],
  /** Every non-modal notification, as VS Code would render it (its message only). */
  notices: [] as Array<{ kind: 'information' | 'warning' | 'error'; message: string }>,
  /** The button pressed on a modal (undefined: dismissed, i.e. Cancel). May be async. */
  answer: (_modal: ShownModal): string | undefined | Promise<string | undefined> => undefined,
  /** What a quick pick returns (undefined: dismissed). */
  pick: (_items: unknown[]): unknown => undefined,
  /** Fires every file watcher the handlers created (as a save of the watched file does). */
  fireWatchers(): void {
    for (const listener of watcherListeners) listener();
  },
  /** Runs a registered command as a caller does. */
  run(command: string, ...args: unknown[]): Promise<unknown> {
    const handler = this.commands.get(command);
    if (!handler) throw new Error(`no command ${command} was registered`);
    return Promise.resolve(handler(...args));
  },
  reset(): void {
    this.modals.length = 0;
    this.notices.length = 0;
    this.pick = () => undefined;
    this.answer = () => undefined;
  },
};

/** A notification or a modal: modals are kept and answered, notifications kept. */
async function shown(kind: 'information' | 'warning' | 'error', message: string, options?: { modal?: boolean; detail?: string } | string, ...items: string[]) {
  if (typeof options !== 'object' || !options.modal) {
    standIn.notices.push({ kind, message });
    return undefined;
  }
  const modal = { message, detail: options.detail ?? '', buttons: items };
  standIn.modals.push(modal);
  return standIn.answer(modal);
}

const watcherListeners = new Set<Listener>();
const providers = new Map<string, { provideTextDocumentContent(uri: Uri): string }>();
const none = () => new Disposable();

const api = {
  Disposable,
  Uri,
  RelativePattern,
  CancellationError,
  CancellationTokenSource: class {
    readonly token = { isCancellationRequested: false, onCancellationRequested: none };
    cancel(): void {
      this.token.isCancellationRequested = true;
    }
    dispose(): void {}
  },
  commands: {
    registerCommand(name: string, handler: (...args: unknown[]) => unknown) {
      standIn.commands.set(name, handler);
      return new Disposable(() => standIn.commands.delete(name));
    },
    executeCommand: async () => undefined,
  },
  env: { uriScheme: 'vscode', language: 'en' },
  // English, as VS Code gives it with no translation: the message with {0}, {1}… filled in.
  l10n: { t: ENGLISH.t },
  StatusBarAlignment: { Left: 1, Right: 2 },
  ThemeColor: class {
    constructor(readonly id: string) {}
  },
  MarkdownString: class {
    constructor(readonly value = '') {}
  },
  // Tree views as the host's providers build them (src/host/views): the item is what VS Code draws.
  TreeItem: class {
    constructor(
      public label: string,
      public collapsibleState = 0,
    ) {}
  },
  TreeItemCollapsibleState: { None: 0, Collapsed: 1, Expanded: 2 },
  ThemeIcon: class {
    constructor(
      readonly id: string,
      readonly color?: unknown,
    ) {}
  },
  QuickPickItemKind: { Separator: -1, Default: 0 },
  EventEmitter: class<T> {
    private readonly listeners = new Set<(value: T) => void>();
    readonly event = (listener: (value: T) => void) => {
      this.listeners.add(listener);
      return new Disposable(() => this.listeners.delete(listener));
    };
    fire(value: T): void {
      for (const listener of this.listeners) listener(value);
    }
    dispose(): void {
      this.listeners.clear();
    }
  },
  window: {
    createStatusBarItem(id: string) {
      const item: Record<string, unknown> = { id, show: () => undefined, hide: () => undefined, dispose: () => undefined };
      standIn.statusItems.push(item);
      return item;
    },
    showWarningMessage: (message: string, options?: { modal?: boolean; detail?: string } | string, ...items: string[]) =>
      shown('warning', message, options, ...items),
    showInformationMessage: (message: string, options?: { modal?: boolean; detail?: string } | string, ...items: string[]) =>
      shown('information', message, options, ...items),
    showErrorMessage: (message: string, options?: { modal?: boolean; detail?: string } | string, ...items: string[]) =>
      shown('error', message, options, ...items),
    showQuickPick: async (items: unknown[]) => standIn.pick(await items),
    showInputBox: async () => undefined,
    showTextDocument: async () => undefined,
  },
  workspace: {
    fs: {
      readFile: async (uri: Uri) => new Uint8Array(fs.readFileSync(uri.fsPath)),
      writeFile: async (uri: Uri, data: Uint8Array) => fs.writeFileSync(uri.fsPath, data),
      createDirectory: async (uri: Uri) => void fs.mkdirSync(uri.fsPath, { recursive: true }),
    },
    registerTextDocumentContentProvider(scheme: string, provider: { provideTextDocumentContent(uri: Uri): string }) {
      providers.set(scheme, provider);
      return new Disposable(() => providers.delete(scheme));
    },
    openTextDocument: async (uri: Uri) => ({ uri, getText: () => providers.get(uri.scheme)?.provideTextDocumentContent(uri) ?? '' }),
    createFileSystemWatcher() {
      const onAny = event(watcherListeners);
      return { onDidChange: onAny, onDidCreate: onAny, onDidDelete: onAny, dispose: () => undefined };
    },
    onDidChangeConfiguration: none,
    getConfiguration: () => ({ get: <T>(_key: string, fallback?: T) => fallback }),
    onDidGrantWorkspaceTrust: none,
  },
};

// `vscode` resolves to the stand-in for every module loaded after this one.
const loader = Module as unknown as { _resolveFilename(request: string, ...rest: unknown[]): string };
const resolve = loader._resolveFilename;
loader._resolveFilename = function (request: string, ...rest: unknown[]) {
  return request === 'vscode' ? 'vscode' : resolve.call(this, request, ...rest);
};
require.cache.vscode = { id: 'vscode', filename: 'vscode', loaded: true, exports: api } as unknown as NodeJS.Module;
