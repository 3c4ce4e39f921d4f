/**
 * `agent-run --version` and `--help` start fast: they load none of the bundle's heavy chunks, the
 * task spec's zod schema first among them (~20 ms of a start on a slow machine; `--timeout`'s
 * duration pattern once pulled it in through spec/schema.ts). Checked on the bundle users run, by
 * the files Node loads.
 */
import { spawnSync } from "node:child_process";
import { readFileSync } from "node:fs";
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { afterAll, expect, test } from "vitest";
import { BUILT_CLI } from "./helpers/built.ts";

let dir: string | undefined;
afterAll(async () => {
  if (dir) await rm(dir, { recursive: true, force: true });
});

/** The bundle's files Node loaded for `args`, by a resolve hook that writes them down at exit. */
async function loadedFiles(args: string[]): Promise<string[]> {
  dir ??= await mkdtemp(path.join(os.tmpdir(), "agent-run-loaded-"));
  const hook = path.join(dir, "hook.mjs");
  const list = path.join(dir, `loaded-${args.join("-")}.txt`);
  await writeFile(
    hook,
    [
      'import { registerHooks } from "node:module";',
      'import { writeFileSync } from "node:fs";',
      "const urls = [];",
      "registerHooks({ resolve(specifier, context, next) { const r = next(specifier, context); urls.push(r.url); return r; } });",
      `process.on("exit", () => writeFileSync(${JSON.stringify(list)}, urls.join("\\n")));`,
    ].join("\n"),
  );
  const result = spawnSync(process.execPath, ["--import", hook, BUILT_CLI, ...args], { encoding: "utf8" });
  expect(result.status, result.stderr).toBe(0);
  return readFileSync(list, "utf8")
    .split("\n")
    .filter((url) => url.startsWith("file:") && url.includes(path.dirname(BUILT_CLI)));
}

test.for([["--version"], ["--help"]])("%s loads no zod", async (args) => {
  const files = await loadedFiles(args);
  expect(files.length).toBeGreaterThan(1);
  for (const url of files) {
    expect(readFileSync(new URL(url), "utf8"), url).not.toContain("$ZodType");
  }
});
