import { spawn } from "node:child_process";
import { existsSync, writeFileSync } from "node:fs";
import path from "node:path";
import { expect, test } from "vitest";
import { ROOT } from "./helpers/cli.ts";
import { tempDir } from "./output-helpers.ts";

/**
 * A run's temp dirs are removed when its process exits. A process still writing in one then (the
 * spawner's git, in a run that ended early) makes that removal fail with ENOTEMPTY: the runner
 * must still exit as it meant to, without a stack trace, and the dir goes with the reaper (which
 * kills the writer's group first, as it does the spawner's). Here a child process makes a run
 * temp dir, starts a shell that keeps creating files in it, and exits.
 */
test("a temp dir written to while the process exits: a clean exit, and the reaper removes it", async () => {
  const dir = tempDir("agent-run-temp-race-");
  const script = path.join(dir, "child.ts");
  const report = path.join(dir, "made");
  writeFileSync(
    script,
    [
      `import { spawn } from "node:child_process";`,
      `import { writeFileSync } from "node:fs";`,
      `import { makeRunTempDir } from ${JSON.stringify(path.join(ROOT, "src", "system", "run-temp.ts"))};`,
      `import { watchGroup } from ${JSON.stringify(path.join(ROOT, "src", "system", "reaper.ts"))};`,
      `const made = await makeRunTempDir("race");`,
      `writeFileSync(${JSON.stringify(report)}, made);`,
      // Files appear in it as fast as a shell makes them, until it is gone.
      `const writer = spawn("sh", ["-c", 'i=0; while : > "$0/f$i" 2>/dev/null; do i=$((i+1)); done', made], { stdio: "ignore", detached: true });`,
      "writer.unref();",
      // Its group is the reaper's to kill, as the spawner's is: then the reaper removes the dir.
      "watchGroup(writer.pid);",
      "await new Promise((resolve) => setTimeout(resolve, 300));",
      "process.exit(7);",
      "",
    ].join("\n"),
  );
  const child = spawn(process.execPath, [script], { stdio: ["ignore", "ignore", "pipe"] });
  let stderr = "";
  child.stderr.on("data", (chunk: Buffer) => {
    stderr += chunk.toString();
  });
  const code = await new Promise((resolve) => child.on("close", resolve));
  expect(stderr).toBe("");
  expect(code).toBe(7);
  const made = (await import("node:fs")).readFileSync(report, "utf8");
  // Gone, whichever removed it: the exit hook, or the reaper when the hook lost the race.
  for (let waited = 0; existsSync(made) && waited < 10_000; waited += 50) {
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  expect(existsSync(made)).toBe(false);
});
