/**
 * The offline demo: runs examples/lint-fix in a temp copy with its recorded session (no network,
 * no API key), with ESLint really run by the task's hooks, then shows what the run left behind and
 * what to try next. The temp copy is removed at the end, also when the run fails or is stopped
 * with Ctrl-C; `npm run demo -- --keep` keeps it to look at.
 */
import { spawnSync } from "node:child_process";
import { cpSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import os from "node:os";
import path from "node:path";

const root = path.resolve(import.meta.dirname, "..");
const example = path.join(root, "examples", "lint-fix");
const keep = process.argv.includes("--keep");
const work = mkdtempSync(path.join(os.tmpdir(), "agent-run-demo-"));

// Ctrl-C reaches the CLI too (same process group), which stops and writes its outputs; the demo
// waits for it and cleans up instead of dying at once with the folder left behind.
let stoppedBy: NodeJS.Signals | undefined;
for (const signal of ["SIGINT", "SIGTERM", "SIGHUP"] as const) {
  process.on(signal, () => {
    stoppedBy = signal;
  });
}

const read = (file: string) => {
  try {
    return readFileSync(file, "utf8");
  } catch {
    return undefined;
  }
};

let status: number;
try {
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
  status = result.status ?? 1;
  const out = path.join(work, ".agent-run");
  console.log(`\n--- ${path.join(out, "patch.diff")}`);
  console.log(read(path.join(out, "patch.diff")) || "(empty)");
  console.log(`--- ${path.join(out, "usage.json")}`);
  console.log(read(path.join(out, "usage.json")) ?? "(not written)");
  console.log(`--- also: ${path.join(out, "summary.md")} and ${path.join(out, "events.jsonl")}`);
  console.log(`exit code: ${status}`);
} catch (error) {
  console.error(`demo: ${error instanceof Error ? error.message : String(error)}`);
  status = 1;
} finally {
  if (keep) console.log(`\nkept ${work} (remove it when done)`);
  else rmSync(work, { recursive: true, force: true });
}

// The signal handlers above run only once spawnSync has returned; the CLI's own exit code says
// whether it was stopped (130, 143).
const interrupted = stoppedBy !== undefined || status === 130 || status === 143;
if (!interrupted) {
  console.log(`
What to try next:
  npm run demo -- --keep                            keep the run's folder and read summary.md, events.jsonl
  node bin/agent-run.js validate examples/lint-fix/task.yml
                                                    the effective configuration, without calling a model
  node bin/agent-run.js your-task.yml --cwd ~/your-repo
                                                    your own task (docs/task-spec.md) on your repository,
                                                    with ANTHROPIC_API_KEY or OPENAI_API_KEY set, or a local
                                                    model (docs/providers.md, "Local servers and OpenRouter")
  node bin/agent-run.js your-task.yml --replay session.yml
                                                    a scripted session instead of a model (docs/replay.md)`);
}
process.exitCode =
  status === 130 || status === 143 ? status : stoppedBy === "SIGINT" ? 130 : stoppedBy ? 143 : status;
