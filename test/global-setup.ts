/**
 * Bundles the CLI and the action once per test run, from the sources as they are now, into
 * node_modules/.cache/agent-run-test-dist: tests of "what users run" spawn these bundles (minified,
 * every dependency inlined, as dist/ is), never a stale dist/. CI then checks that the committed
 * dist/ is the same build.
 */
import { rm } from "node:fs/promises";
import path from "node:path";
import { build } from "rolldown";
import config from "../rolldown.config.ts";
import { BUILT_DIST } from "./helpers/built.ts";

export default async function setup(): Promise<void> {
  await rm(BUILT_DIST, { recursive: true, force: true });
  const { output, ...input } = config;
  await build({
    ...input,
    output: { ...output, dir: BUILT_DIST },
    cwd: path.resolve(import.meta.dirname, ".."),
  });
}
