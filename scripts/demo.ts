/**
 * The offline demo: runs examples/lint-fix in a temp copy with its recorded session (no network,
 * no API key), with ESLint really run by the task's hooks, then shows what the run left behind.
 */
import { spawnSync } from "node:child_process";
import { cpSync, mkdtempSync, readFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";

const root = path.resolve(import.meta.dirname, "..");
const example = path.join(root, "examples", "lint-fix");
const work = mkdtempSync(path.join(os.tmpdir(), "agent-run-demo-"));
cpSync(example, work, {
  recursive: true,
  filter: (src) => !/[\\/](\.agent-run|node_modules)$/.test(src),
});

console.log(`demo: running examples/lint-fix in ${work}\n`);
const result = spawnSync(
  process.execPath,
  [
    path.join(root, "src", "cli", "bin.ts"),
    path.join(work, "task.yml"),
    "--replay",
    path.join(work, "session.yml"),
  ],
  {
    stdio: "inherit",
    env: {
      ...process.env,
      PATH: `${path.join(root, "node_modules", ".bin")}${path.delimiter}${process.env.PATH}`,
    },
  },
);
const out = path.join(work, ".agent-run");
console.log(`\n--- ${path.join(out, "patch.diff")}`);
console.log(readFileSync(path.join(out, "patch.diff"), "utf8") || "(empty)");
console.log(`--- ${path.join(out, "usage.json")}`);
console.log(readFileSync(path.join(out, "usage.json"), "utf8"));
console.log(`--- also: ${path.join(out, "summary.md")} and ${path.join(out, "events.jsonl")}`);
console.log(`exit code: ${result.status}`);
process.exitCode = result.status ?? 1;
