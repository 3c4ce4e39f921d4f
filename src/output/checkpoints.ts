/**
 * Turn-end checkpoints of the workspace snapshot, taken while the model thinks. After a turn that
 * may have changed files, once the next model call has taken CHECKPOINT_DELAY_MS without a tool
 * starting, the private index is brought up to date (the workspace holds still: no tool runs
 * during a model call, and one that starts meanwhile waits for the update), then that tree's patch
 * is computed in the background. So at the end of a run the final update reads only what the
 * last slow turn changed, the patch of a run whose last model call took a moment is usually
 * already there, and when a stop signal leaves no time for the full diff, the last checkpoint's
 * patch is a good one to write (marked partial).
 *
 * A turn whose next tool starts sooner (a model answering in milliseconds, a replay) has no
 * checkpoint of its own, unless the last one began CHECKPOINT_INTERVAL_MS ago or more: then it is
 * taken at once, so a burst of quick turns still has one every couple of seconds. Four git
 * processes a turn, each forking the runner's whole process on its main thread (and with the
 * sandbox, a bwrap), would otherwise be the larger part of a quick turn.
 *
 * Patches are computed one at a time; a checkpoint taken while one is computed replaces any
 * waiting one (the newest wins). Failures are reported through `onError` and change nothing else:
 * the finish phase computes its own patch when it finds none.
 */
import { type ComputedPatch, computePatch, discardPatch } from "./diff.ts";
import { updateTree, type WorkspaceSnapshot } from "./snapshot.ts";

/** How long a model call must have gone on, after a turn that may have changed files, for that turn's checkpoint. */
export const CHECKPOINT_DELAY_MS = 100;

/** A turn that may have changed files this long after the last checkpoint began has one at once. */
export const CHECKPOINT_INTERVAL_MS = 2000;

export interface Checkpoint {
  /** The turn after which it was taken. */
  turn: number;
  patch: ComputedPatch;
}

export interface Checkpoints {
  /**
   * Files may have changed in `turn`: update the index CHECKPOINT_DELAY_MS from now, unless `hold`
   * comes first, and compute the patch after. At once with `{ now: true }`, or when the last
   * checkpoint began CHECKPOINT_INTERVAL_MS ago or more (or none did).
   */
  take(turn: number, options?: { now?: boolean }): void;
  /**
   * The workspace is about to change: a checkpoint not begun yet is dropped. Resolves once no
   * index update is in flight; until then the workspace must hold still. Never rejects.
   */
  hold(): Promise<void>;
  /**
   * As `hold`, for the end of a run, which changes nothing: resolves with the tree of the last
   * index update when the workspace cannot have changed since it began (it began `quiet`, and no
   * `hold` came after), else undefined. Never rejects.
   */
  settle(): Promise<string | undefined>;
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

export interface CheckpointsOptions {
  onError?: (message: string) => void;
  delayMs?: number;
  intervalMs?: number;
  /**
   * Whether nothing but the runner's tools can change the workspace now, and until the next
   * `hold`: no process of the model's lives, and none can start without a tool (see
   * RunSandbox.quiet). An update begun so is all the end needs (`settle`).
   */
  quiet?: () => Promise<boolean>;
}

export function createCheckpoints(
  snapshot: WorkspaceSnapshot,
  options: CheckpointsOptions = {},
): Checkpoints {
  const delayMs = options.delayMs ?? CHECKPOINT_DELAY_MS;
  const intervalMs = options.intervalMs ?? CHECKPOINT_INTERVAL_MS;
  let lastBegun = Number.NEGATIVE_INFINITY;
  const controller = new AbortController();
  let scheduled: NodeJS.Timeout | undefined;
  let indexUpdate: Promise<unknown> = Promise.resolve();
  let newest: Checkpoint | undefined;
  let computing: Wanted | undefined;
  let waiting: Wanted | undefined;
  // Files of superseded patches are kept one step longer: the finish phase may be copying one.
  let previous: ComputedPatch | undefined;
  let disposed = false;
  /** Counts `hold`s and updates begun: the last update, with none from its beginning to its end, holds the last word. */
  let holds = 0;
  let begun = 0;
  /** The tree of an update begun quiet, while no `hold` has come since it began. */
  let unchanged: string | undefined;

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

  const begin = (turn: number) => {
    lastBegun = performance.now();
    const since = holds;
    const mine = ++begun;
    unchanged = undefined;
    indexUpdate = (async () => {
      // Asked before git reads anything: what it reads then is all there is until the next hold.
      const quiet = (await options.quiet?.().catch(() => false)) === true;
      const id = await updateTree(snapshot);
      if (quiet && holds === since && begun === mine) unchanged = id;
      return id;
    })().then(
      (id) => {
        if (disposed) return;
        waiting?.resolve(undefined);
        waiting = want(turn, id);
        if (!computing) void run();
      },
      (error: unknown) => options.onError?.(checkpointFailed(turn, error)),
    );
  };

  const unschedule = () => {
    clearTimeout(scheduled);
    scheduled = undefined;
  };

  return {
    take(turn, takeOptions) {
      if (disposed) return;
      unschedule();
      if (takeOptions?.now || performance.now() - lastBegun >= intervalMs) {
        begin(turn);
        return;
      }
      scheduled = setTimeout(() => {
        scheduled = undefined;
        if (!disposed) begin(turn);
      }, delayMs);
      // A pending checkpoint does not keep the process alive: the finish phase takes its own.
      scheduled.unref();
    },
    hold: () => {
      holds++;
      unchanged = undefined;
      unschedule();
      return indexUpdate.then(() => {});
    },
    settle: () => {
      unschedule();
      return indexUpdate.then(() => unchanged);
    },
    latest: () => (newest && newest.patch.from === snapshot.tree ? newest : undefined),
    patchFor(tree) {
      for (const job of [waiting, computing]) if (job?.tree === tree) return job.done;
      if (newest?.patch.to === tree && newest.patch.from === snapshot.tree)
        return Promise.resolve(newest.patch);
      return undefined;
    },
    async dispose(keep) {
      disposed = true;
      unschedule();
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
