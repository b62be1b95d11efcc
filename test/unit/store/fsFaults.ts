// The module object itself (a default import), not a namespace copy: patching it is what the store's
// `import * as fs` sees, because that namespace reads through to it.
import fs from 'node:fs';
import * as path from 'node:path';

/**
 * Fails the k-th file operation under one folder with a chosen errno, the way SQLite's ioerr tests
 * do: every operation the store makes on its folder (open, write, sync, truncate, rename, unlink,
 * mkdir, readdir; sync and async, file handles included) is counted, and the one at `failAt` fails
 * (`sticky` more after it too: a disk that stays full for a while). A failed write leaves half of
 * its bytes behind, as a full disk does.
 */
export class FsFaults {
  /** Operations seen since install, by kind, in order. */
  readonly ops: string[] = [];
  failAt = -1;
  sticky = 0;
  errno = 'ENOSPC';
  /** How many operations failed. */
  failed = 0;
  private readonly fds = new Set<number>();
  private readonly restore: Array<() => void> = [];

  constructor(private readonly dir: string) {}

  install(): void {
    const under = (p: unknown): boolean => typeof p === 'string' && path.resolve(p).startsWith(this.dir);
    // The patched functions are called with `this` as the fs module: they reach the shim through this name.
    // eslint-disable-next-line @typescript-eslint/no-this-alias
    const self = this;
    const patch = <K extends keyof typeof fs>(name: K, make: (original: (typeof fs)[K]) => (typeof fs)[K]): void => {
      const original = fs[name];
      (fs as Record<string, unknown>)[name] = make(original);
      this.restore.push(() => ((fs as Record<string, unknown>)[name] = original));
    };
    patch(
      'openSync',
      (original) =>
        ((file: fs.PathLike, ...rest: unknown[]) => {
          if (under(file)) self.hit('open');
          const fd = (original as (...a: unknown[]) => number)(file, ...rest);
          if (under(file)) self.fds.add(fd);
          return fd;
        }) as typeof fs.openSync,
    );
    patch(
      'closeSync',
      (original) =>
        ((fd: number) => {
          self.fds.delete(fd);
          original(fd);
        }) as typeof fs.closeSync,
    );
    for (const name of ['fsyncSync', 'fdatasyncSync', 'ftruncateSync'] as const) {
      patch(
        name,
        (original) =>
          ((fd: number, ...rest: unknown[]) => {
            if (self.fds.has(fd)) self.hit(name);
            return (original as (...a: unknown[]) => unknown)(fd, ...rest);
          }) as never,
      );
    }
    patch(
      'writeSync',
      (original) =>
        ((fd: number, buffer: Buffer, ...rest: unknown[]) => {
          if (self.fds.has(fd) && self.fails('writeSync')) {
            const [offset = 0, length = buffer.length, position] = rest as [number?, number?, number?];
            (original as (...a: unknown[]) => number)(fd, buffer, offset, Math.floor(length / 2), position);
            throw self.error('writeSync');
          }
          return (original as (...a: unknown[]) => number)(fd, buffer, ...rest);
        }) as typeof fs.writeSync,
    );
    for (const name of ['truncateSync', 'renameSync', 'rmSync', 'unlinkSync', 'mkdirSync', 'readdirSync', 'writeFileSync'] as const) {
      patch(
        name,
        (original) =>
          ((file: unknown, ...rest: unknown[]) => {
            if (under(file)) self.hit(name);
            return (original as (...a: unknown[]) => unknown)(file, ...rest);
          }) as never,
      );
    }
    patch(
      'write',
      (original) =>
        ((fd: number, buffer: Buffer, offset: number, length: number, position: number, callback: (e: Error | null, n?: number) => void) => {
          if (self.fds.has(fd) && self.fails('write')) {
            const error = self.error('write');
            return (original as (...a: unknown[]) => void)(fd, buffer, offset, Math.floor(length / 2), position, () => callback(error));
          }
          return (original as (...a: unknown[]) => void)(fd, buffer, offset, length, position, callback);
        }) as never,
    );
    patch(
      'fdatasync',
      (original) =>
        ((fd: number, callback: (e: Error | null) => void) => {
          if (self.fds.has(fd) && self.fails('fdatasync')) return setImmediate(() => callback(self.error('fdatasync')));
          return original(fd, callback);
        }) as never,
    );
    const promises = fs.promises as unknown as Record<string, unknown>;
    const originalOpen = fs.promises.open;
    const originalRename = fs.promises.rename;
    promises.open = async (file: fs.PathLike, ...rest: unknown[]) => {
      if (under(file)) self.hit('promises.open');
      const handle = await (originalOpen as (...a: unknown[]) => Promise<fs.promises.FileHandle>)(file, ...rest);
      if (!under(file)) return handle;
      const writeFile = handle.writeFile.bind(handle);
      const sync = handle.sync.bind(handle);
      handle.writeFile = (async (...a: unknown[]) => {
        self.hit('handle.writeFile');
        return (writeFile as (...x: unknown[]) => Promise<void>)(...a);
      }) as typeof handle.writeFile;
      handle.sync = async () => {
        self.hit('handle.sync');
        return sync();
      };
      return handle;
    };
    promises.rename = async (from: string, to: string) => {
      if (under(from)) self.hit('promises.rename');
      return originalRename(from, to);
    };
    this.restore.push(() => {
      promises.open = originalOpen;
      promises.rename = originalRename;
    });
  }

  uninstall(): void {
    for (const undo of this.restore.splice(0).reverse()) undo();
  }

  /** Counts an operation and says whether it fails. */
  private fails(op: string): boolean {
    const k = this.ops.length;
    this.ops.push(op);
    const fail = this.failAt >= 0 && k >= this.failAt && k <= this.failAt + this.sticky;
    if (fail) this.failed += 1;
    return fail;
  }

  private hit(op: string): void {
    if (this.fails(op)) throw this.error(op);
  }

  private error(op: string): NodeJS.ErrnoException {
    return Object.assign(new Error(`${this.errno}: simulated ${op} failure`), { code: this.errno, syscall: op });
  }
}
