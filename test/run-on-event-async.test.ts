/**
 * `runTask`'s `onEvent` as a library user writes it: possibly async. A listener that rejects must be
 * as harmless as one that throws (docs/library.md): the run goes on and resolves with its outputs,
 * and the user's process does not die of an unhandled rejection.
 */
import { writeFile } from "node:fs/promises";
import path from "node:path";
import { expect, test } from "vitest";
import { ROOT, tempWorkspace } from "./helpers/cli.ts";
import { command } from "./helpers/pack-project.ts";

test("an async onEvent that rejects changes nothing: the run ends with its result, the process lives", async () => {
  const dir = await tempWorkspace({
    "task.yml":
      "name: hello\nmodel: anthropic:claude-sonnet-5-5\nprompt: Create hello.txt.\ntools: [write]\n",
    "session.yml": `turns:
  - tool_calls:
      - { name: write, arguments: { path: hello.txt, content: "hello\\n" } }
  - text: Wrote hello.txt.
`,
  });
  // A script of the user's own, in its own process: an unhandled rejection there ends it (exit 1).
  await writeFile(
    path.join(dir, "run.ts"),
    `import { runTask } from ${JSON.stringify(path.join(ROOT, "src", "index.ts"))};
let calls = 0;
const result = await runTask({
  taskFile: "task.yml",
  replay: "session.yml",
  onEvent: async () => {
    calls++;
    throw new Error("the listener failed");
  },
});
console.log(JSON.stringify({ exitCode: result.exitCode, changed: result.changedFiles, calls }));
`,
  );
  const run = await command(process.execPath, ["run.ts"], { cwd: dir });
  expect(run.code, run.stderr).toBe(0);
  expect(run.stderr).not.toContain("the listener failed");
  const printed = JSON.parse(run.stdout.trim()) as { exitCode: number; changed: string[]; calls: number };
  expect(printed.exitCode).toBe(0);
  expect(printed.changed).toEqual(["hello.txt"]);
  expect(printed.calls).toBeGreaterThan(5);
});
