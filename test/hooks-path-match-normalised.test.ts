import { mkdir, mkdtemp, readFile, rm, symlink, writeFile } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import type { BeforeToolCallContext } from "../src/core/index.ts";
import { createHooks } from "../src/hooks/index.ts";
import { callPaths } from "../src/hooks/match.ts";
import { parseTask } from "../src/spec/index.ts";
import { createWorkspace } from "../src/tools/workspace-path.ts";
import { beforeToolCallContext } from "./helpers/hook-context.ts";

let workspace: string;
let outside: string;
beforeAll(async () => {
  workspace = await mkdtemp(path.join(os.tmpdir(), "hooks-path-"));
  outside = await mkdtemp(path.join(os.tmpdir(), "hooks-path-out-"));
  await writeFile(path.join(workspace, "package-lock.json"), "{}");
  await symlink("package-lock.json", path.join(workspace, "lock-link.json"));
  await mkdir(path.join(workspace, "generated"));
  await writeFile(path.join(workspace, "generated", "api.ts"), "");
  await symlink("generated", path.join(workspace, "gen-link"));
  await symlink(outside, path.join(workspace, "out-link"));
});
afterAll(async () => {
  await rm(workspace, { recursive: true, force: true });
  await rm(outside, { recursive: true, force: true });
});

function hooksFor(rules: string) {
  const env = { PATH: process.env.PATH };
  const task = parseTask(
    `model: anthropic:claude-sonnet-4-5\nprompt: go\ntools: [read, write, edit, bash]\nhooks:\n  before_tool_call:\n${rules}`,
    path.join(workspace, "task.yml"),
    { env },
  );
  const hooks = createHooks(task, { workspace, env, emit: () => {}, getTurn: () => 1, getCost: () => 0 });
  return (name: string, args: Record<string, unknown>) =>
    hooks.beforeToolCall!(ctx(name, args), new AbortController().signal);
}

function ctx(name: string, args: Record<string, unknown>): BeforeToolCallContext {
  return beforeToolCallContext(name, args, "call_1");
}

const blocked = { block: true, reason: "lock files are generated", rule: 0 };

describe("before_tool_call path rules match the path the tool really uses", () => {
  const lockRule = `    - match: { tool: [write, edit], path: "package-lock.json" }\n      block: lock files are generated\n`;

  test("a leading @ (stripped by the tools) does not get past a path block", async () => {
    const call = hooksFor(lockRule);
    expect(await call("write", { path: "@package-lock.json", content: "x" })).toEqual(blocked);
    expect(await call("edit", { path: `@${path.join(workspace, "package-lock.json")}` })).toEqual(blocked);
    expect(await call("write", { path: "package-lock.json", content: "x" })).toEqual(blocked);
    expect(await call("write", { path: "@notes.md", content: "x" })).toBeUndefined();
  });

  test("a symlink to a blocked file does not get past a path block", async () => {
    const call = hooksFor(lockRule);
    expect(await call("write", { path: "lock-link.json", content: "x" })).toEqual(blocked);
    expect(await call("write", { path: "@lock-link.json", content: "x" })).toEqual(blocked);
  });

  test("a symlinked folder does not get past a folder glob, for existing and new files", async () => {
    const call = hooksFor(
      `    - match: { tool: [write, edit], path: "generated/**" }\n      block: generated\n`,
    );
    expect(await call("edit", { path: "gen-link/api.ts" })).toEqual({
      block: true,
      reason: "generated",
      rule: 0,
    });
    expect(await call("write", { path: "gen-link/new/deep.ts", content: "" })).toEqual({
      block: true,
      reason: "generated",
      rule: 0,
    });
    expect(await call("write", { path: "src/gen-link.ts", content: "" })).toBeUndefined();
  });

  test("a path outside the workspace is matched by its lexical form only", async () => {
    const call = hooksFor(lockRule);
    expect(await call("write", { path: "../package-lock.json", content: "x" })).toEqual(blocked);
    expect(callPaths({ path: "out-link/package-lock.json" }, workspace)).toEqual([
      "out-link/package-lock.json",
    ]);
    expect(callPaths({ path: "../x/y" }, workspace)).toEqual(["../x/y"]);
  });

  test("{{ tool.path }} gets the normalised workspace-relative path", async () => {
    const call = hooksFor(`    - run: printf '%s\\n' {{ tool.path }} >> paths.txt\n`);
    await call("write", { path: "@src/a.ts", content: "" });
    await call("write", { path: path.join(workspace, "b.ts"), content: "" });
    const lines = (await readFile(path.join(workspace, "paths.txt"), "utf8")).split("\n");
    expect(lines).toEqual(["src/a.ts", "b.ts", ""]);
  });

  test("the forms matched are the tools' own lexical and real relative paths", async () => {
    const tools = createWorkspace(workspace);
    for (const input of [
      "@package-lock.json",
      "lock-link.json",
      "gen-link/api.ts",
      "gen-link/x/new.ts",
      "a/../b",
    ]) {
      const resolved = await tools.resolve(input);
      expect(callPaths({ path: input }, workspace)).toEqual([
        ...new Set([resolved.relative, resolved.realRelative]),
      ]);
    }
  });
});
