/** Why a long-running command was asked to stop. */
export type StopCause = 'SIGINT' | 'SIGTERM' | 'SIGHUP' | 'parent exited';

const SIGNALS = ['SIGINT', 'SIGTERM', 'SIGHUP'] as const;
/** How often the parent is looked at: a wrapper's death is noticed within this. */
const PARENT_POLL_MS = 100;

/**
 * Resolves when the command should stop: a signal, or the process that
 * started it gone. `npx`, `npm exec` and `sh -c` do not pass a SIGTERM on to
 * their child; when a script kills the wrapper by its PID, the child sees its
 * parent change and stops as if signalled (unless `watchParent` is false). Every later signal calls
 * `onRepeat` instead of killing the process, so a save under way finishes.
 */
export function whenStopped(onRepeat: (cause: StopCause) => void, options: { watchParent?: boolean } = {}): Promise<StopCause> {
  // A parent gone may take our stdout pipe with it: a failed write must not end the save.
  for (const out of [process.stdout, process.stderr]) out.on('error', () => {});
  const parent = process.ppid;
  return new Promise((resolve) => {
    let stopped = false;
    const fire = (cause: StopCause) => {
      if (stopped) return onRepeat(cause);
      stopped = true;
      resolve(cause);
    };
    for (const s of SIGNALS) process.on(s, () => fire(s));
    // A background server that was told how it will be stopped (a PID file) outlives the shell that started it.
    if (options.watchParent === false) return;
    const poll = setInterval(() => {
      if (process.ppid !== parent) {
        clearInterval(poll);
        fire('parent exited');
      }
    }, PARENT_POLL_MS);
    poll.unref();
  });
}
