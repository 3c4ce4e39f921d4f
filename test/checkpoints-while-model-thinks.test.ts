/**
 * When the turn-end checkpoints run (src/output/checkpoints.ts): the first at once, a later one
 * only once the next model call has gone on `delayMs` without a tool starting (`hold` drops it),
 * or at once again when the last began `intervalMs` ago. Real git on a real workspace; the delays
 * are the test's own, long enough that a loaded machine keeps the order.
 */
import { readFile, rm, writeFile } from "node:fs/promises";
import path from "node:path";
import { afterEach, describe, expect, test } from "vitest";
import { gitOrThrow } from "../src/output/git.ts";
import {
  type CheckpointsOptions,
  createCheckpoints,
  disposeSnapshot,
  snapshotWorkspace,
} from "../src/output/index.ts";
import { until } from "./helpers/patch-run.ts";
import { trustWorkspace } from "./helpers/trust.ts";

const cleanups: Array<() => Promise<unknown>> = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup().catch(() => {});
});

async function workspace() {
  const dir = await trustWorkspace({ "a.txt": "start\n" }, { git: true });
  cleanups.push(() => rm(dir, { recursive: true, force: true }));
  const snapshot = await snapshotWorkspace(dir);
  cleanups.push(() => disposeSnapshot(snapshot));
  return { dir, snapshot };
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

test("the first checkpoint at once; a later one dropped by a tool that starts within the delay, taken after it", async () => {
  const { dir, snapshot } = await workspace();
  const checkpoints = createCheckpoints(snapshot, { delayMs: 400, intervalMs: 60_000 });
  cleanups.push(() => checkpoints.dispose());

  await writeFile(path.join(dir, "a.txt"), "turn 1\n");
  checkpoints.take(1);
  await until(() => checkpoints.latest()?.turn === 1, 10_000);
  expect(await readFile(checkpoints.latest()?.patch.file ?? "", "utf8")).toContain("+turn 1");

  // Turn 2's checkpoint waits for the delay; the next tool starts first and drops it.
  await writeFile(path.join(dir, "a.txt"), "turn 2\n");
  checkpoints.take(2);
  await checkpoints.hold();
  await sleep(800);
  expect(checkpoints.latest()?.turn).toBe(1);

  // Turn 3's: nothing starts within the delay, so it is taken, with turn 2's change in it.
  await writeFile(path.join(dir, "b.txt"), "turn 3\n");
  checkpoints.take(3);
  await sleep(100);
  expect(checkpoints.latest()?.turn).toBe(1);
  await until(() => checkpoints.latest()?.turn === 3, 10_000);
  const patch = await readFile(checkpoints.latest()?.patch.file ?? "", "utf8");
  expect(patch).toContain("+turn 2");
  expect(patch).toContain("+turn 3");
});

test("a turn ending the interval after the last checkpoint began has one at once; `now` too", async () => {
  const { dir, snapshot } = await workspace();
  const checkpoints = createCheckpoints(snapshot, { delayMs: 60_000, intervalMs: 300 });
  cleanups.push(() => checkpoints.dispose());
  checkpoints.take(1);
  await until(() => checkpoints.latest()?.turn === 1, 10_000);
  await sleep(400);
  await writeFile(path.join(dir, "a.txt"), "turn 2\n");
  checkpoints.take(2);
  await until(() => checkpoints.latest()?.turn === 2, 10_000);
  // Within the interval: only `now` takes one before the (here endless) delay.
  await writeFile(path.join(dir, "a.txt"), "turn 3\n");
  checkpoints.take(3, { now: true });
  await until(() => checkpoints.latest()?.turn === 3, 10_000);
  expect(await readFile(checkpoints.latest()?.patch.file ?? "", "utf8")).toContain("+turn 3");
});

test("dispose cancels a checkpoint still waiting for its delay", async () => {
  const { dir, snapshot } = await workspace();
  const checkpoints = createCheckpoints(snapshot, { delayMs: 300, intervalMs: 60_000 });
  checkpoints.take(1);
  await until(() => checkpoints.latest()?.turn === 1, 10_000);
  await writeFile(path.join(dir, "a.txt"), "turn 2\n");
  checkpoints.take(2);
  await checkpoints.dispose();
  await sleep(600);
  expect(checkpoints.latest()?.turn).toBe(1);
});

/** Checkpoints over a fresh workspace whose a.txt a tool has just written, asking `quiet`. */
async function afterAWrite(quiet?: CheckpointsOptions["quiet"]) {
  const { dir, snapshot } = await workspace();
  const checkpoints = createCheckpoints(snapshot, quiet ? { quiet } : {});
  cleanups.push(() => checkpoints.dispose());
  await writeFile(path.join(dir, "a.txt"), "turn 1\n");
  return { snapshot, checkpoints };
}

describe("settle: the tree the end of a run can take without reading the workspace again", () => {
  test("an update begun quiet, with no hold since: its tree; after a hold, none", async () => {
    const { snapshot, checkpoints } = await afterAWrite(async () => true);
    checkpoints.take(1);
    const tree = await checkpoints.settle();
    expect(tree).toBeDefined();
    expect(tree).toBe(
      await gitOrThrow(["write-tree"], { cwd: snapshot.workTree, env: snapshot.env }).then((out) =>
        out.trim(),
      ),
    );
    expect(await checkpoints.settle()).toBe(tree);
    // A tool is about to run: the workspace may change after the update.
    await checkpoints.hold();
    expect(await checkpoints.settle()).toBeUndefined();
  });

  test("none when the update began with a process of the model's possibly alive", async () => {
    const { snapshot, checkpoints } = await afterAWrite(async () => false);
    checkpoints.take(1);
    expect(await checkpoints.settle()).toBeUndefined();
    // Nor without anyone to ask.
    const unasked = createCheckpoints(snapshot);
    cleanups.push(() => unasked.dispose());
    unasked.take(2);
    expect(await unasked.settle()).toBeUndefined();
  });

  test("none when the last update began with a process possibly alive, though the one before began quiet", async () => {
    const answers: Array<(quiet: boolean) => void> = [];
    const { checkpoints } = await afterAWrite(() => new Promise((resolve) => answers.push(resolve)));
    checkpoints.take(1, { now: true });
    checkpoints.take(2, { now: true });
    await until(() => answers.length === 2, 5_000);
    // The first update (begun quiet) ends first; the second began after it, with a process alive.
    answers[0]?.(true);
    answers[1]?.(false);
    expect(await checkpoints.settle()).toBeUndefined();
  });

  test("none when a tool held the checkpoints while the update was in flight", async () => {
    let answer: (quiet: boolean) => void = () => {};
    const { checkpoints } = await afterAWrite(
      () =>
        new Promise((resolve) => {
          answer = resolve;
        }),
    );
    checkpoints.take(1);
    const held = checkpoints.hold();
    answer(true);
    await held;
    expect(await checkpoints.settle()).toBeUndefined();
  });
});
