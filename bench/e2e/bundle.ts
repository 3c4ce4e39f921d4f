/**
 * Builds the CLI and action bundles (rolldown.config.ts, unchanged but for the output folder) from
 * the working tree into a temp folder, so the bench measures what users run (dist/cli.js,
 * dist/index.js) as of the current sources, without touching the committed dist/.
 */
import { mkdtemp, writeFile } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { buildInto } from "../../rolldown.config.ts";

export interface Bundle {
  dir: string;
  /** The CLI bundle (dist/cli.js as built). */
  cli: string;
  /** The action bundle (dist/index.js as built). */
  action: string;
  buildMs: number;
}

export async function buildBundle(): Promise<Bundle> {
  const dir = await mkdtemp(path.join(os.tmpdir(), "agent-run-bench-dist-"));
  const started = performance.now();
  await buildInto(dir, { logLevel: "silent" });
  // As in the package (dist/ under its package.json): without it, Node would parse every chunk
  // twice to detect its module format.
  await writeFile(path.join(dir, "package.json"), '{ "type": "module" }\n');
  return {
    dir,
    cli: path.join(dir, "cli.js"),
    action: path.join(dir, "index.js"),
    buildMs: performance.now() - started,
  };
}
