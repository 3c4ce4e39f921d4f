/**
 * `agent-run --version` and `--help` start fast: they load none of the bundle's heavy chunks, the
 * task spec's zod schema first among them (~20 ms of a start on a slow machine; `--timeout`'s
 * duration pattern once pulled it in through spec/schema.ts). `validate`, and a run replaying a
 * session, of a model the catalog's bundled answers name do not load the model catalog (0.8 MB).
 * Checked on the bundle users run, by the files Node loads.
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

/**
 * The bundle's files loaded for `args`, written down at exit: the ES modules by a resolve hook, the
 * core's CommonJS chunks (which src/system/core-loader.ts reads and compiles itself) by what it reads.
 */
async function loadedFiles(args: string[], env: NodeJS.ProcessEnv = process.env): Promise<string[]> {
  dir ??= await mkdtemp(path.join(os.tmpdir(), "agent-run-loaded-"));
  const hook = path.join(dir, "hook.mjs");
  const list = path.join(dir, `loaded-${args.length}-${Math.random().toString(36).slice(2)}.txt`);
  await writeFile(
    hook,
    [
      'import { registerHooks } from "node:module";',
      'import fs, { writeFileSync } from "node:fs";',
      'import { pathToFileURL } from "node:url";',
      "const urls = [];",
      "registerHooks({ resolve(specifier, context, next) { const r = next(specifier, context); urls.push(r.url); return r; } });",
      "const read = fs.readFileSync;",
      'fs.readFileSync = function (file, ...rest) { if (typeof file === "string" && file.endsWith(".cjs")) urls.push(pathToFileURL(file).href); return read.call(this, file, ...rest); };',
      `process.on("exit", () => writeFileSync(${JSON.stringify(list)}, urls.join("\\n")));`,
    ].join("\n"),
  );
  const result = spawnSync(process.execPath, ["--import", hook, BUILT_CLI, ...args], {
    encoding: "utf8",
    env,
  });
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

test.for([
  ["a model the SDK lists", false, "anthropic:claude-sonnet-5-5"],
  ["a dated id only the catalog's rules know", true, "anthropic:claude-sonnet-5-5-20260101"],
] as const)("validate of a task with %s loads the model catalog: %s", async ([, loads, model]) => {
  dir ??= await mkdtemp(path.join(os.tmpdir(), "agent-run-loaded-"));
  const task = path.join(dir, `task-${loads}.yml`);
  await writeFile(task, `model: ${model}\nprompt: hi\ntools: [read]\n`);
  // A fresh cache folder: no answers of an earlier run stand in for the catalog.
  const cache = await mkdtemp(path.join(dir, "cache-"));
  const files = await loadedFiles(["validate", task], { ...process.env, XDG_CACHE_HOME: cache });
  const catalog = files.filter((url) => readFileSync(new URL(url), "utf8").includes("pricing_urls"));
  expect(catalog.length > 0).toBe(loads);
});

test("a replayed run prices its recorded model from the bundled answers: no catalog", async () => {
  dir ??= await mkdtemp(path.join(os.tmpdir(), "agent-run-loaded-"));
  const work = await mkdtemp(path.join(dir, "replay-"));
  await writeFile(
    path.join(work, "task.yml"),
    "model: anthropic:claude-sonnet-5-5\nprompt: hi\ntools: [read]\n",
  );
  await writeFile(
    path.join(work, "s.yml"),
    "model: anthropic:claude-sonnet-5-5\nturns:\n  - text: done\n    usage: { input: 1000, output: 10 }\n",
  );
  const cache = await mkdtemp(path.join(dir, "cache-"));
  const files = await loadedFiles([path.join(work, "task.yml"), "--replay", path.join(work, "s.yml")], {
    ...process.env,
    XDG_CACHE_HOME: cache,
  });
  expect(files.filter((url) => readFileSync(new URL(url), "utf8").includes("pricing_urls"))).toEqual([]);
  const usage = JSON.parse(readFileSync(path.join(work, ".agent-run", "usage.json"), "utf8"));
  expect(usage.cost_usd).toBeCloseTo((1000 * 2 + 10 * 10) / 1e6, 12);
});
