/**
 * The finish phase's patch: the workspace's final tree and its patch, and the best patch at hand
 * when there is no time left for that one.
 */
import { errorText } from "../core/errors.ts";
import {
  type ComputedPatch,
  computePatch,
  emptyPatch,
  noteSubmoduleChanges,
  THE_INDEX,
  updateIndex,
} from "../output/index.ts";
import type { RunContext } from "./run-context.ts";

/** The patch the outputs are written from, and what it holds. */
export type PatchState =
  | { status: "complete"; patch: ComputedPatch }
  /** The full patch is not done (yet): the last checkpoint's, or none when there was no checkpoint. */
  | { status: "partial"; patch: ComputedPatch | undefined; turn: number | undefined }
  /** The full patch could not be computed; `patch` is the last checkpoint's, if any. */
  | { status: "failed"; error: string; patch: ComputedPatch | undefined; turn: number | undefined };

/**
 * The patch of every change of the run: empty when nothing that may change a file ran
 * (RunContext.unchanged); else, once the index update in flight is done (one not begun is
 * dropped), the index is brought up to date (reading only what changed since the last
 * checkpoint), unless the last checkpoint's update began when nothing but the runner could change
 * the workspace and no tool ran after it (Checkpoints.settle): its tree is the end's. When the
 * index holds a tree written before (the last checkpoint's, usually), that tree's patch is taken
 * from the checkpoint that has it, or git diffs that tree; otherwise git diffs the index itself,
 * without writing its tree first. Never rejects.
 */
export async function endPatch(ctx: RunContext): Promise<PatchState> {
  const { snapshot, checkpoints } = ctx;
  if (ctx.unchanged) return { status: "complete", patch: emptyPatch(snapshot?.tree ?? "") };
  if (!snapshot) return failed(ctx, "the workspace snapshot was never taken");
  try {
    const tree = (await checkpoints?.settle()) ?? (await updateIndex(snapshot));
    await noteSubmoduleChanges(snapshot);
    if (tree === undefined) return { status: "complete", patch: await computePatch(snapshot, THE_INDEX) };
    const checkpointed = await checkpoints?.patchFor(tree);
    if (checkpointed && checkpointed.from === snapshot.tree && checkpointed.to === tree) {
      return { status: "complete", patch: checkpointed };
    }
    return { status: "complete", patch: await computePatch(snapshot, tree) };
  } catch (error) {
    return failed(ctx, `the patch could not be computed: ${errorText(error)}`);
  }
}

/** The last checkpoint's patch, written when the process must end before the full one is done. */
export function partialPatch(ctx: RunContext): PatchState {
  const latest = ctx.checkpoints?.latest();
  return { status: "partial", patch: latest?.patch, turn: latest?.turn };
}

function failed(ctx: RunContext, error: string): PatchState {
  const latest = ctx.checkpoints?.latest();
  return { status: "failed", error, patch: latest?.patch, turn: latest?.turn };
}

/** The summary's note on a patch that is not the whole of the run's changes; undefined for a complete one. */
export function partialNote(state: PatchState): string | undefined {
  if (state.status === "complete") return undefined;
  const why =
    state.status === "failed"
      ? "the full patch could not be computed"
      : "the run had to stop before the full patch was computed";
  if (!state.patch) return `patch.diff is empty and partial: ${why}, and no turn had been checkpointed.`;
  return `patch.diff is partial: ${why}; it holds the changes up to the end of turn ${state.turn}.`;
}
