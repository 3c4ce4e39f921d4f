/**
 * What the finish phase lets go of before it computes the patch: a checkpoint's index update in
 * flight, then the run's resources (the sandbox, MCP servers, a resumed run's patch copy), each
 * bounded in time so that a hang costs a warning, not the outputs.
 */
import { errorText } from "../core/errors.ts";
import type { RunCleanup, RunContext } from "./run-context.ts";

/** Each cleanup may take this long before the finish phase goes on without it: 2 s. */
export const CLEANUP_TIMEOUT_MS = 2000;

/**
 * Waits for a checkpoint's index update in flight, for at most CLEANUP_TIMEOUT_MS or until the
 * phase is urgent. It runs in a bwrap that binds the sandbox's mount points (the empty folders made
 * for protected paths that did not exist): were they removed with the sandbox while it starts, it
 * would fail, and a run that went well would warn that its checkpoint failed (a model answering at
 * once after a command did, most times), then read the workspace again for the final patch.
 */
export async function settleCheckpoint(ctx: RunContext, urgent: Promise<void>): Promise<void> {
  if (!ctx.checkpoints) return;
  let timer: NodeJS.Timeout | undefined;
  await Promise.race([
    ctx.checkpoints.settle(),
    urgent,
    new Promise((resolve) => {
      timer = setTimeout(resolve, CLEANUP_TIMEOUT_MS);
    }),
  ]);
  clearTimeout(timer);
}

/**
 * Runs each cleanup (of those `which` takes: by default all) once, newest first; one that throws or
 * hangs is reported and left behind. Never rejects.
 */
export async function runCleanups(
  ctx: RunContext,
  which: (cleanup: RunCleanup) => boolean = () => true,
): Promise<void> {
  for (const cleanup of [...ctx.cleanups].reverse().filter(which)) {
    let timer: NodeJS.Timeout | undefined;
    const timedOut = new Promise<string>((resolve) => {
      timer = setTimeout(
        () => resolve(`did not finish within ${CLEANUP_TIMEOUT_MS / 1000} s`),
        CLEANUP_TIMEOUT_MS,
      );
    });
    const problem = await Promise.race([
      cleanup.dispose().then(
        () => undefined,
        (error: unknown) => errorText(error),
      ),
      timedOut,
    ]);
    clearTimeout(timer);
    if (problem !== undefined) {
      ctx.emit({ type: "warning", message: `${cleanup.what} could not be cleaned up: ${problem}` });
    }
  }
}
