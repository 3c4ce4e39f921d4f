/**
 * Ends the process once stdout and stderr have written what they hold. `process.exit` skips what a
 * natural exit does after the event loop has emptied: Node's teardown of the V8 heap, a `munmap`
 * per page, each flushing the TLBs of every CPU the process ran on. The kernel frees the same memory
 * in one go at exit. On a virtual machine whose page tables are costly (a PVM guest, where every
 * page-table write traps) that teardown was ~35 ms of a one-turn run's wait after its last answer;
 * elsewhere it is a few ms.
 *
 * Only for an entry point whose work is done: whatever is still pending (an unref'd timer, a child's
 * pipe) is dropped, as at a natural exit. `exit` listeners still run.
 */

/** How long a stream that does not drain (a reader that stopped reading) may hold the exit: 2 s. */
export const DRAIN_TIMEOUT_MS = 2000;

export async function exitWhenFlushed(code: number): Promise<never> {
  await Promise.all([drained(process.stdout), drained(process.stderr)]);
  process.exit(code);
}

/** Resolves once `stream` holds nothing unwritten, or can write no more. Never rejects. */
function drained(stream: NodeJS.WriteStream): Promise<void> {
  if (stream.writableLength === 0 || stream.destroyed) return Promise.resolve();
  return new Promise((resolve) => {
    const done = () => {
      clearTimeout(timer);
      stream.off("drain", done);
      stream.off("error", done);
      stream.off("close", done);
      resolve();
    };
    const timer = setTimeout(done, DRAIN_TIMEOUT_MS);
    stream.once("drain", done);
    stream.once("error", done);
    stream.once("close", done);
  });
}
