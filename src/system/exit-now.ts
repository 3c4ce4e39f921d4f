/**
 * Ends the process once stdout and stderr have written what they hold. `process.exit` skips what a
 * natural exit does after the event loop has emptied: Node's teardown of the V8 heap, a `munmap`
 * per page, each flushing the TLBs of every CPU the process ran on. The kernel frees the same memory
 * in one go at exit. On a virtual machine whose page tables are costly (a PVM guest, where every
 * page-table write traps) that teardown was ~35 ms of a one-turn run's wait after its last answer;
 * elsewhere it is a few ms.
 *
 * Where Node can (`process.execve`: Node 22.15 and 23.11 on, not Windows), the process then ends
 * by becoming `sh -c 'exit CODE'` instead of calling `process.exit`: an exec skips what `exit`
 * still does in C, Node's platform threads joined one by one and libc's exit handlers, which free
 * what OpenSSL and Node allocated (the ~150 root certificates that loading `node:tls` parses
 * included) a block at a time. The runner has forked by then (the reaper, the spawner), so those
 * pages are copy-on-write and each first write to one faults. On the machine above, a one-turn
 * run's last answer to its exit: 58 → 51 ms and 65 → 56 ms (medians of 16 and 12 alternated runs,
 * the two wire formats); what is left is mostly the kernel freeing the old image's memory, which an
 * exec does as an exit would, and sh's ~1 ms. The PID, the exit code, stdout and stderr stay.
 *
 * Only for an entry point whose work is done: whatever is still pending (an unref'd timer, a child's
 * pipe) is dropped, as at a natural exit. `exit` listeners still run, as `process.exit` runs them.
 */
import { executablePath } from "./which.ts";

/** How long a stream that does not drain (a reader that stopped reading) may hold the exit: 2 s. */
export const DRAIN_TIMEOUT_MS = 2000;

/**
 * Codes above this say a signal ended the work (128 + its number: 130 SIGINT, 143 SIGTERM). Such a
 * process may get another while it ends (GitHub sends SIGTERM 7.5 s after SIGINT; a second
 * Ctrl-C): the entries' handlers catch it until the process is gone, but the shell it would become
 * dies by it, and a run's 130 reads as a kill. It ends with `process.exit` instead; so does a
 * process told of a stop signal (`noteStopSignal`) whatever its code, such as a run whose work was
 * done when the signal came (its code 0 read as a kill when the next one met the shell).
 */
const SIGNAL_CODES_ABOVE = 128;

/**
 * Where a stop signal is noted: on `process`, under a registered symbol, because the bundle's entry
 * and its core (loaded apart, src/system/core-loader.ts) each hold their own copy of this module.
 */
const STOP_SIGNAL = Symbol.for("agent-run.stop-signal-received");

/** Says a stop signal (SIGINT, SIGTERM) reached the process: it will not end as a shell. */
export function noteStopSignal(): void {
  Reflect.set(process, STOP_SIGNAL, true);
}

export async function exitWhenFlushed(code: number): Promise<never> {
  await Promise.all([drained(process.stdout), drained(process.stderr)]);
  if (!(code > SIGNAL_CODES_ABOVE) && Reflect.get(process, STOP_SIGNAL) !== true) endAs(code);
  process.exit(code);
}

/**
 * Runs the `exit` listeners and replaces the process with a shell that exits with `code`. Returns
 * only when it could not: no `execve` in this Node, no absolute `sh`, a code sh cannot give, or the
 * exec failed (then listeners added with `on` run once more in `process.exit`; the runner's own are
 * `once`).
 */
function endAs(code: number): void {
  const execve = process.execve;
  if (typeof execve !== "function" || !Number.isInteger(code) || code < 0 || code > 255) return;
  const sh = executablePath("sh");
  if (!sh.startsWith("/")) return;
  process.exitCode = code;
  process.emit("exit", code);
  try {
    execve.call(process, sh, ["sh", "-c", `exit ${code}`], {});
  } catch {
    // Left to process.exit.
  }
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
