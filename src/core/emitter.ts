/** A listener list: `fire` calls every listener, `on` adds one until its disposable is disposed. */
export function emitter<A extends unknown[]>() {
  const listeners = new Set<(...args: A) => void>();
  return {
    fire: (...args: A) => listeners.forEach((listener) => listener(...args)),
    on(listener: (...args: A) => void) {
      listeners.add(listener);
      return { dispose: () => void listeners.delete(listener) };
    },
  };
}
