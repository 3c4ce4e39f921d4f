import { existsSync } from "node:fs";
import { readFile } from "node:fs/promises";
import path from "node:path";
import { expect, test } from "vitest";
import { protectedPaths } from "../src/run/build-tools.ts";
import type { LoadedTask } from "../src/spec/types.ts";
import { runCli, startCli, tempWorkspace } from "./helpers/cli.ts";

const TASK = (body: string) =>
  `name: t\nmodel: anthropic:claude-sonnet-4-5\nprompt: do it\nsandbox: off\n${body}`;
const TEXT_ONLY = "turns:\n  - text: done\n";

test("a closed stdout (--json | head) does not cost the run its outputs or its exit code", async () => {
  const dir = await tempWorkspace({ "task.yml": TASK(""), "s.yml": TEXT_ONLY });
  const { child, done } = startCli([
    path.join(dir, "task.yml"),
    "--replay",
    path.join(dir, "s.yml"),
    "--json",
  ]);
  child.stdout?.destroy();
  const result = await done;
  expect(result.code).toBe(0);
  const usage = JSON.parse(await readFile(path.join(dir, ".agent-run", "usage.json"), "utf8"));
  expect(usage.conclusion).toBe("success");
});

test("events.jsonl holds one run: a second run into the same folder starts it over", async () => {
  const dir = await tempWorkspace({ "task.yml": TASK(""), "s.yml": TEXT_ONLY });
  for (let i = 0; i < 2; i++) {
    expect((await runCli([path.join(dir, "task.yml"), "--replay", path.join(dir, "s.yml")])).code).toBe(0);
  }
  const events = await readFile(path.join(dir, ".agent-run", "events.jsonl"), "utf8");
  expect(events.match(/"type":"run_start"/g)).toHaveLength(1);
});

test("an outputs folder that is the workspace itself is a usage error", async () => {
  const dir = await tempWorkspace({ "task.yml": TASK("outputs: { dir: . }\n"), "s.yml": TEXT_ONLY });
  const result = await runCli([path.join(dir, "task.yml"), "--replay", path.join(dir, "s.yml")]);
  expect(result.code).toBe(2);
  expect(result.stderr).toContain("is the workspace itself");
  expect(existsSync(path.join(dir, "usage.json"))).toBe(false);
});

test("a --record file inside the workspace is not part of the patch", async () => {
  const dir = await tempWorkspace({ "task.yml": TASK(""), "s.yml": TEXT_ONLY });
  const result = await runCli([
    path.join(dir, "task.yml"),
    "--replay",
    path.join(dir, "s.yml"),
    "--record",
    path.join(dir, "rec.yml"),
  ]);
  expect(result.code).toBe(0);
  expect(existsSync(path.join(dir, "rec.yml"))).toBe(true);
  expect(await readFile(path.join(dir, ".agent-run", "patch.diff"), "utf8")).toBe("");
});

test("a timeout beyond what a timer can hold means no timeout, not an instant one", async () => {
  const dir = await tempWorkspace({ "task.yml": TASK("limits: { timeout: 600h }\n"), "s.yml": TEXT_ONLY });
  const result = await runCli([path.join(dir, "task.yml"), "--replay", path.join(dir, "s.yml")]);
  expect(result.code).toBe(0);
});

test("the program a hook runs is protected, also after VAR=value; its arguments are not", () => {
  const rule = (text: string, index: number) => ({
    index,
    run: { text, parts: [text] },
    maxAttempts: 1,
    timeoutMs: 1,
  });
  const task = {
    file: "",
    dir: "/ws",
    name: "t",
    spec: {
      hooks: {
        beforeToolCall: [rule("STRICT=1 ./ci/guard.sh", 0)],
        afterToolCall: [rule("npx eslint --fix src/a.js", 0)],
        prepareNextTurn: [],
        beforeStop: [rule("bin/check --all", 0)],
      },
    },
  } as unknown as LoadedTask;
  const globs = protectedPaths(task, "/ws", "/ws/.agent-run");
  expect(globs).toEqual(expect.arrayContaining(["ci/guard.sh", "bin/check", ".agent-run/**"]));
  expect(globs).not.toContain("src/a.js");
});
