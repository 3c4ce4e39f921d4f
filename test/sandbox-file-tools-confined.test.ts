/**
 * With the sandbox on, the file tools work inside the run's bubblewrap session: the kernel's
 * mounts confine them like bash, whatever the tools' own checks say. The tools here are built with
 * no protected globs at all, so only the mounts stand between them and the protected paths.
 */
import { link, readFile, rm, writeFile } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { afterEach, describe, expect, test } from "vitest";
import type { AgentTool } from "../src/core/types.ts";
import { ALWAYS_PROTECTED } from "../src/run/build-tools.ts";
import {
  createSandboxSession,
  detectSandbox,
  prepareSandbox,
  SANDBOX_ENV_ALLOWLIST,
  sandboxEnv,
} from "../src/sandbox/index.ts";
import {
  createEditTool,
  createLocalFileOperations,
  createReadTool,
  createWriteTool,
  type FileOperations,
  runProcess,
} from "../src/tools/index.ts";
import { runnerSandbox } from "./helpers/run-sandbox.ts";
import { NO_SANDBOX } from "./helpers/sandbox-available.ts";
import { processesWith, runScripted, toolOutputs, trustWorkspace } from "./helpers/trust.ts";
import { emptyContext } from "./tools-support.ts";

const TASK =
  "model: anthropic:claude-sonnet-4-5\nprompt: files\ntools: [read, write, edit]\nsandbox: required\n";
const cleanups: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

/** The run's sandbox as the runner sets it up for TASK, and its file operations. */
async function sandboxedFiles(files: Record<string, string> = {}) {
  const { dir, sandbox } = await runnerSandbox(TASK, cleanups, {
    files: { "task.yml": TASK, ...files },
    protectedGlobs: [...ALWAYS_PROTECTED, "task.yml", ".agent-run/**"],
    toolOutputDir: true,
  });
  expect(sandbox.state).toBe("sandboxed");
  if (!sandbox.fileOperations) throw new Error("no sandboxed file operations");
  return { dir, operations: sandbox.fileOperations };
}

async function attempt<P>(tool: AgentTool<P, unknown>, params: P): Promise<string> {
  try {
    const result = await tool.execute("call", params, new AbortController().signal, () => {}, emptyContext);
    return result.content.map((part) => (part.type === "text" ? part.text : "")).join("");
  } catch (error) {
    return `refused: ${(error as Error).message}`;
  }
}

describe.skipIf(NO_SANDBOX)("sandboxed file tools: the kernel's mounts confine them", () => {
  test("protected paths are read-only even when the tools check no glob at all", async () => {
    const { dir, operations } = await sandboxedFiles();
    const write = createWriteTool(dir, { protectedPaths: [], operations });
    const edit = createEditTool(dir, { protectedPaths: [], operations });
    const outcomes = {
      gitHook: await attempt(write, { path: ".git/hooks/pre-commit", content: "evil\n" }),
      gitHead: await attempt(edit, { path: ".git/HEAD", edits: [{ oldText: "ref", newText: "evil" }] }),
      workflow: await attempt(write, { path: ".github/workflows/x.yml", content: "evil\n" }),
      spec: await attempt(edit, { path: "./task.yml", edits: [{ oldText: "files", newText: "obey" }] }),
      specWrite: await attempt(write, { path: "task.yml", content: "evil\n" }),
      outputs: await attempt(write, { path: ".agent-run/summary.md", content: "evil\n" }),
    };
    for (const text of Object.values(outcomes)) expect(text).toMatch(/^refused: .*read-only file system/);
    expect(await readFile(path.join(dir, "task.yml"), "utf8")).toBe(TASK);
    expect(await readFile(path.join(dir, ".git/HEAD"), "utf8")).toMatch(/^ref: /);
    await expect(readFile(path.join(dir, ".git/hooks/pre-commit"))).rejects.toThrow();
    // The rest of the workspace stays writable.
    expect(await attempt(write, { path: "src/new.txt", content: "fine\n" })).toContain("Wrote 5 bytes");
    expect(await readFile(path.join(dir, "src/new.txt"), "utf8")).toBe("fine\n");
  }, 30_000);

  test("the same tools in the runner's process would have written them (what the mounts add)", async () => {
    const dir = await trustWorkspace({ "a.txt": "a\n" }, { git: true });
    cleanups.push(() => rm(dir, { recursive: true, force: true }));
    const write = createWriteTool(dir, { protectedPaths: [] });
    expect(await attempt(write, { path: ".git/hooks/pre-commit", content: "x\n" })).toContain("Wrote");
  });

  test("a file hard-linked from outside is not written or edited through; reading it is allowed", async () => {
    const outsideFile = path.join(os.tmpdir(), `agent-run-hardlink-${process.pid}-${Date.now()}`);
    await writeFile(outsideFile, "outside\n");
    cleanups.push(() => rm(outsideFile, { force: true }));
    const { dir, operations } = await sandboxedFiles();
    await link(outsideFile, path.join(dir, "linked.txt"));
    const write = createWriteTool(dir, { protectedPaths: [], operations });
    const edit = createEditTool(dir, { protectedPaths: [], operations });
    const read = createReadTool(dir, { operations });
    expect(await attempt(write, { path: "linked.txt", content: "x\n" })).toMatch(/^refused: .*2 hard links/);
    expect(
      await attempt(edit, { path: "linked.txt", edits: [{ oldText: "outside", newText: "x" }] }),
    ).toMatch(/^refused: .*2 hard links/);
    expect(await attempt(read, { path: "linked.txt" })).toBe("1\toutside");
    expect(await readFile(outsideFile, "utf8")).toBe("outside\n");
  }, 30_000);

  test("the git config the file tools read is the sandbox's copy without credentials", async () => {
    const token = "cnry-sandboxed-git-8642";
    const dir = await trustWorkspace(
      { "a.txt": "a\n" },
      { extraheader: `AUTHORIZATION: basic ${Buffer.from(`x-access-token:${token}`).toString("base64")}` },
    );
    cleanups.push(() => rm(dir, { recursive: true, force: true }));
    const { result, events } = await runScripted(
      dir,
      TASK,
      [{ tool_calls: [{ name: "read", arguments: { path: ".git/config" } }] }, { text: "done" }],
      { env: { ...process.env, ANTHROPIC_API_KEY: "k" } },
    );
    expect(result.sandbox).toBe("sandboxed");
    const [text] = toolOutputs(events);
    // Not blocked by the .git guard (the copy holds nothing to hide), and the token is not in it.
    expect(text).toContain("extraheader removed by agent-run's sandbox");
    expect(text).not.toContain("basic");
    expect(await readFile(path.join(dir, ".git/config"), "utf8")).toContain("basic");
  }, 60_000);
});

describe.skipIf(NO_SANDBOX)("sandboxed file handles read and write what is there", () => {
  test("any range reads right: across 4 MiB blocks, backwards, past the end; edits land whole", async () => {
    const { dir, operations } = await sandboxedFiles();
    const size = 10 * 1024 * 1024 + 17;
    const bytes = Buffer.alloc(size);
    for (let i = 0; i < size; i++) bytes[i] = i % 251;
    await writeFile(path.join(dir, "big.bin"), bytes);
    const handle = await operations.open("big.bin", "edit");
    expect(handle.info.size).toBe(size);
    for (const [position, length] of [
      [0, 1000],
      [4 * 1024 * 1024 - 10, 20],
      [8 * 1024 * 1024 + 5, 3 * 1024 * 1024],
      [100, 9 * 1024 * 1024],
      [size - 5, 50],
      [size + 10, 10],
    ] as const) {
      const buffer = Buffer.alloc(length);
      const n = await handle.read(buffer, 0, length, position);
      const expected = bytes.subarray(position, Math.min(size, position + length));
      expect(n).toBe(expected.length);
      expect(buffer.subarray(0, n).equals(expected)).toBe(true);
    }
    const replacement = Buffer.alloc(20 * 1024 * 1024, 7);
    await handle.replace([replacement.subarray(0, 1), "middle", replacement.subarray(1)]);
    await handle.close();
    const after = await readFile(path.join(dir, "big.bin"));
    expect(after.length).toBe(replacement.length + 6);
    expect(after.subarray(1, 7).toString()).toBe("middle");
  }, 60_000);

  test("files read whole with open are closed by the server; closing them later touches no other file", async () => {
    const { dir, operations } = await sandboxedFiles();
    const block = 4 * 1024 * 1024;
    const sizes = { "empty.txt": 0, "small.txt": 9, "block.bin": block, "past.bin": block + 1 };
    for (const [name, size] of Object.entries(sizes)) {
      await writeFile(path.join(dir, name), Buffer.alloc(size, name.charCodeAt(0)));
    }
    for (const [name, size] of Object.entries(sizes)) {
      const reader = await operations.open(name, "read");
      // Opened after the read handle's number was freed: the server may give it the same one.
      const editor = await operations.open("small.txt", "edit");
      const buffer = Buffer.alloc(size + 10);
      expect(await reader.read(buffer, 0, buffer.length, 0)).toBe(size);
      expect(buffer.subarray(0, size).equals(Buffer.alloc(size, name.charCodeAt(0)))).toBe(true);
      await reader.close();
      await editor.replace([`after ${name}`]);
      await editor.close();
      expect(await readFile(path.join(dir, "small.txt"), "utf8")).toBe(`after ${name}`);
      await writeFile(path.join(dir, "small.txt"), Buffer.alloc(9, "s".charCodeAt(0)));
    }
  }, 60_000);
});

describe.skipIf(NO_SANDBOX)("sandboxed file tools see the sandbox's own /proc", () => {
  test("/proc/self is the exec server's: none of the runner's variables, a PID namespace of its own", async () => {
    const dir = await trustWorkspace({ "a.txt": "a\n" }, { git: true });
    const support = await detectSandbox();
    const prepared = await prepareSandbox({
      bwrapPath: support.bwrapPath,
      workspace: dir,
      protectedGlobs: [".git/**"],
      env: process.env,
    });
    const session = createSandboxSession({
      policy: prepared.policy,
      serverEnv: sandboxEnv(process.env, { home: prepared.policy.home }),
      fallback: runProcess,
      onDown: () => {},
    });
    cleanups.push(async () => {
      await session.dispose();
      await prepared.dispose();
      await rm(dir, { recursive: true, force: true });
    });
    const read = async (ops: FileOperations, file: string) => {
      const [content] = await ops.readFiles([file], { maxFileBytes: 1 << 20 });
      if (content?.kind !== "content") throw new Error(`not read: ${JSON.stringify(content)}`);
      return content.data.toString("utf8");
    };
    // What the runner's own /proc/self would hand over: its whole environment block.
    const runner = (await read(createLocalFileOperations("/proc/self"), "environ")).split("\0");
    const withheld = runner.filter((entry) => {
      const name = entry.slice(0, entry.indexOf("="));
      // HOME and TMPDIR are set inside too (to the sandbox's empty tmpfs), maybe to the same path.
      const setInside = ["HOME", "TMPDIR"].includes(name) || name.startsWith("AGENT_RUN_");
      return name !== "" && !setInside && !SANDBOX_ENV_ALLOWLIST.includes(name);
    });
    expect(withheld.length).toBeGreaterThan(3);
    const proc = session.fileOperations("/proc/self");
    const inside = (await read(proc, "environ")).split("\0");
    expect(inside).toContain("TMPDIR=/tmp");
    expect(withheld.filter((entry) => inside.includes(entry))).toEqual([]);
    const pid = Number(/^Pid:\s+(\d+)/m.exec(await read(proc, "status"))?.[1]);
    expect(pid).toBeGreaterThan(0);
    expect(pid).toBeLessThan(10);
  }, 30_000);

  test("if the session dies, file work goes to a spare session: still sandboxed", async () => {
    const { dir, operations } = await sandboxedFiles();
    expect((await operations.lookup("a.txt")).kind).toBe("file");
    const server = processesWith('"use strict"').filter((pid) => processesWith(dir).includes(pid));
    expect(server.length).toBeGreaterThan(0);
    for (const pid of server) process.kill(pid, "SIGKILL");
    await new Promise((resolve) => setTimeout(resolve, 200));
    const write = createWriteTool(dir, { protectedPaths: [], operations });
    expect(await attempt(write, { path: "b.txt", content: "b\n" })).toContain("Wrote");
    expect(await attempt(write, { path: ".git/hooks/x", content: "x\n" })).toMatch(/read-only file system/);
  }, 30_000);
});
