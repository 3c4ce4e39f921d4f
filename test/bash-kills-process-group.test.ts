import { readFile } from "node:fs/promises";
import { join } from "node:path";
import { describe, expect, test } from "vitest";
import { bashParameters, createBashTool } from "../src/tools/index.ts";
import { isRunning, makeWorkspace, run, textOf } from "./tools-support.ts";

async function eventually(check: () => boolean | Promise<boolean>, timeoutMs = 5000): Promise<boolean> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (await check()) return true;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  return check();
}

async function pidFrom(file: string): Promise<number> {
  let text = "";
  await eventually(async () => {
    text = await readFile(file, "utf8").catch(() => "");
    return text.trim().length > 0;
  });
  return Number(text.trim());
}

describe("bash kills the whole process group", () => {
  test("on timeout (per-call override), grandchildren included", async () => {
    const root = await makeWorkspace();
    const tool = createBashTool(root, { timeoutMs: 60_000, killGraceMs: 500 });
    const started = Date.now();
    const result = run(tool, { command: "sleep 100 & echo $! > sleeper.pid; wait", timeout: 1 });
    const sleeper = await pidFrom(join(root, "sleeper.pid"));
    const done = await result;
    expect(done.details.timedOut).toBe(true);
    expect(done.isError).toBe(true);
    expect(done.details.exitCode).toBeUndefined();
    expect(textOf(done)).toContain("Command timed out after 1 s");
    expect(Date.now() - started).toBeLessThan(20_000);
    expect(await eventually(() => !isRunning(sleeper))).toBe(true);
  });

  test("on the default timeout from the options", async () => {
    const root = await makeWorkspace();
    const tool = createBashTool(root, { timeoutMs: 800 });
    const done = await run(tool, { command: "sleep 100" });
    expect(done.details.timedOut).toBe(true);
  });

  test("on abort, even when the command ignores SIGTERM", async () => {
    const root = await makeWorkspace();
    const tool = createBashTool(root, { killGraceMs: 300 });
    const controller = new AbortController();
    const result = run(
      tool,
      { command: "trap '' TERM; sleep 100 & echo $! > sleeper.pid; wait" },
      {
        signal: controller.signal,
      },
    );
    const sleeper = await pidFrom(join(root, "sleeper.pid"));
    controller.abort();
    const done = await result;
    expect(done.details.aborted).toBe(true);
    expect(done.isError).toBe(true);
    expect(await eventually(() => !isRunning(sleeper))).toBe(true);
  });

  test("a background job left behind does not outlive the call", async () => {
    const root = await makeWorkspace();
    const started = Date.now();
    const done = await run(createBashTool(root), {
      command: "sleep 100 & echo $! > sleeper.pid; echo started",
    });
    expect(textOf(done)).toBe("started\n\n[Exit code: 0]");
    expect(Date.now() - started).toBeLessThan(20_000);
    const sleeper = await pidFrom(join(root, "sleeper.pid"));
    expect(await eventually(() => !isRunning(sleeper))).toBe(true);
  });

  test("a timeout too large for a timer means no timeout, not an instant kill", async () => {
    const root = await makeWorkspace();
    const done = await run(createBashTool(root), { command: "sleep 0.3; echo finished", timeout: 1e7 });
    expect(done.details.timedOut).toBe(false);
    expect(textOf(done)).toBe("finished\n\n[Exit code: 0]");
  });

  test("a call's timeout cannot lift the configured one, and the schema bounds it", async () => {
    const root = await makeWorkspace();
    const tool = createBashTool(root, { timeoutMs: 800, killGraceMs: 200 });
    const started = Date.now();
    const done = await run(tool, { command: "sleep 100", timeout: 1e7 });
    expect(done.details.timedOut).toBe(true);
    expect(textOf(done)).toContain("Command timed out after 0.8 s");
    expect(Date.now() - started).toBeLessThan(20_000);
    expect(bashParameters.safeParse({ command: "ls", timeout: 1e7 }).success).toBe(false);
    expect(bashParameters.safeParse({ command: "ls", timeout: 2_147_483 }).success).toBe(true);
  });
});
