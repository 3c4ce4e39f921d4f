/**
 * Turn-end checkpoints of the workspace snapshot. After a turn that may have changed files, the
 * private index is brought up to date (while the workspace holds still: the next tool waits for
 * it), then that tree's patch is computed in the background, during the next model call. So at the
 * end of a run the final update reads only what the last turn changed, the patch of a run that
 * ended with the model's reply is usually already there, and when a stop signal leaves no time for
 * the full diff, the last checkpoint's patch is a good one to write (marked partial).
 *
 * Patches are computed one at a time; a checkpoint taken while one is computed replaces any
 * waiting one (the newest wins). Failures are reported through `onError` and change nothing else:
 * the finish phase computes its own patch when it finds none.
 */
import { type ComputedPatch, computePatch, discardPatch } from "./diff.ts";
import { updateTree, type WorkspaceSnapshot } from "./snapshot.ts";

export interface Checkpoint {
  /** The turn after which it was taken. */
  turn: number;
  patch: ComputedPatch;
}

export interface Checkpoints {
  /** Files may have changed in `turn`: update the index now and compute the patch after. */
  take(turn: number): void;
  /** Resolves once no index update is in flight: until then the workspace must hold still. Never rejects. */
  idle(): Promise<void>;
  /** The newest checkpoint whose patch is computed (from the snapshot's start tree as it is now). */
  latest(): Checkpoint | undefined;
  /** The patch of `tree` when a checkpoint has it or is computing it (undefined when it failed). */
  patchFor(tree: string): Promise<ComputedPatch | undefined> | undefined;
  /** Stops git, removes every patch file but `keep`'s. Later calls of `take` do nothing. */
  dispose(keep?: ComputedPatch): Promise<void>;
}

interface Wanted {
  turn: number;
  tree: string;
  done: Promise<ComputedPatch | undefined>;
  resolve: (patch: ComputedPatch | undefined) => void;
}

export function createCheckpoints(
  snapshot: WorkspaceSnapshot,
  options: { onError?: (message: string) => void } = {},
): Checkpoints {
  const controller = new AbortController();
  let indexUpdate: Promise<unknown> = Promise.resolve();
  let newest: Checkpoint | undefined;
  let computing: Wanted | undefined;
  let waiting: Wanted | undefined;
  // Files of superseded patches are kept one step longer: the finish phase may be copying one.
  let previous: ComputedPatch | undefined;
  let disposed = false;

  const want = (turn: number, tree: string): Wanted => {
    let resolve: Wanted["resolve"] = () => {};
    const done = new Promise<ComputedPatch | undefined>((r) => {
      resolve = r;
    });
    return { turn, tree, done, resolve };
  };

  const run = async () => {
    while (waiting && !disposed) {
      const job = waiting;
      waiting = undefined;
      computing = job;
      if (newest && newest.patch.to === job.tree && newest.patch.from === snapshot.tree) {
        job.resolve(newest.patch);
        continue;
      }
      try {
        const patch = await computePatch(snapshot, job.tree, { signal: controller.signal });
        if (disposed) {
          await discardPatch(patch);
          job.resolve(undefined);
          continue;
        }
        if (previous) await discardPatch(previous);
        previous = newest?.patch;
        newest = { turn: job.turn, patch };
        job.resolve(patch);
      } catch (error) {
        if (!disposed) options.onError?.(checkpointFailed(job.turn, error));
        job.resolve(undefined);
      }
    }
    computing = undefined;
  };

  return {
    take(turn) {
      if (disposed) return;
      indexUpdate = updateTree(snapshot).then(
        (id) => {
          if (disposed) return;
          waiting?.resolve(undefined);
          waiting = want(turn, id);
          if (!computing) void run();
        },
        (error: unknown) => options.onError?.(checkpointFailed(turn, error)),
      );
    },
    idle: () => indexUpdate.then(() => {}),
    latest: () => (newest && newest.patch.from === snapshot.tree ? newest : undefined),
    patchFor(tree) {
      for (const job of [waiting, computing]) if (job?.tree === tree) return job.done;
      if (newest?.patch.to === tree && newest.patch.from === snapshot.tree)
        return Promise.resolve(newest.patch);
      return undefined;
    },
    async dispose(keep) {
      disposed = true;
      controller.abort();
      waiting?.resolve(undefined);
      for (const patch of [previous, newest?.patch]) if (patch && patch !== keep) await discardPatch(patch);
    },
  };
}

/**
 * Git's own message is left out: a process the model left running can swap a workspace folder for
 * a link out while git walks it, and git's complaint then names files outside the workspace.
 */
function checkpointFailed(turn: number, error: unknown): string {
  const code =
    typeof error === "object" && error !== null && "exitCode" in error
      ? ` (exit ${String(error.exitCode)})`
      : "";
  return `the checkpoint after turn ${turn} failed${code}; the final snapshot is taken after leftover processes are stopped`;
}
