/**
 * Bundles the CLI and the action once per test run, from the sources as they are now, into
 * node_modules/.cache/agent-run-test-dist: tests of "what users run" spawn these bundles (minified,
 * every dependency inlined, as dist/ is), never a stale dist/. CI then checks that the committed
 * dist/ is the same build.
 *
 * Every temp folder of the run (the tests', and those of the CLIs and servers they start) is made
 * in one folder of its own, removed at the end: tests that leave theirs behind no longer fill the
 * machine's /tmp (64,000 entries here after a few hundred runs, which every mkdtemp and the
 * reaper's sweep then paid for).
 */
import { chmod, mkdtemp, rm } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { buildInto } from "../rolldown.config.ts";
import { BUILT_DIST } from "./helpers/built.ts";

export default async function setup(): Promise<() => Promise<void>> {
  const temp = await mkdtemp(path.join(os.tmpdir(), "agent-run-tests-"));
  // Open to all, sticky, like /tmp: some tests run the CLI as another user.
  await chmod(temp, 0o1777);
  process.env.TMPDIR = temp;
  await rm(BUILT_DIST, { recursive: true, force: true });
  await buildInto(BUILT_DIST);
  return async () => {
    await rm(temp, { recursive: true, force: true });
  };
}
