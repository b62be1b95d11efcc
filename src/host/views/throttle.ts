/**
 * `run` at most once per `ms`, trailing: a burst of changes (a chore run's steps, servers starting)
 * redraws a view once, with the state after the burst.
 */
export function throttled(ms: number, run: () => void): (() => void) & { cancel(): void } {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const call = () => {
    timer ??= setTimeout(() => {
      timer = undefined;
      run();
    }, ms);
  };
  return Object.assign(call, {
    cancel: () => {
      if (timer) clearTimeout(timer);
      timer = undefined;
    },
  });
}
