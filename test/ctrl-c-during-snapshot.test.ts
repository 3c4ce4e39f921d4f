import { spawn } from "node:child_process";
import { open, readFile, rm } from "node:fs/promises";
import path from "node:path";
import { afterAll, beforeAll, expect, test } from "vitest";
import { BUILT_CLI } from "./helpers/built.ts";
import { ROOT, tempWorkspace } from "./helpers/cli.ts";
import { type MockLlm, startMockLlm } from "./mock-llm/server.ts";

/**
 * Ctrl-C in a terminal sends SIGINT to the whole foreground process group: the runner and every
 * child it started in that group. The runner's own git processes (the workspace snapshot, taken
 * while the first request is out) must not die of it: the run is then interrupted (130) with its
 * outputs, not an "internal error" (4) whose patch "was never taken". Found by the lint-fix demo's
 * Ctrl-C test failing one time in twelve under load.
 */
let mock: MockLlm;
let firstRequest: () => void;
const requested = new Promise<void>((resolve) => {
  firstRequest = resolve;
});
beforeAll(async () => {
  mock = await startMockLlm({
    script: () => {
      firstRequest();
      return { toolCalls: [{ name: "bash", arguments: { command: "true" } }] };
    },
  });
});
afterAll(() => mock.close());

test("SIGINT to the runner's process group while the snapshot's git runs: interrupted, exit 130", async () => {
  const ws = await tempWorkspace({
    "task.yml": "name: ctrl-c\nmodel: anthropic:claude-sonnet-5-5\nprompt: Do it.\ntools: [bash]\n",
  });
  try {
    // A big file keeps `git add` busy for a while (it hashes every byte).
    const big = await open(path.join(ws, "big.bin"), "w");
    await big.truncate(200 * 1024 * 1024);
    await big.close();
    const child = spawn(process.execPath, [BUILT_CLI, "task.yml"], {
      cwd: ws,
      // Its own process group, as a terminal's foreground job.
      detached: true,
      env: {
        ...process.env,
        PATH: `${path.join(ROOT, "node_modules", ".bin")}${path.delimiter}${process.env.PATH}`,
        NO_COLOR: "1",
        GITHUB_ACTIONS: "",
        ANTHROPIC_API_KEY: "sk-ant-test",
        ANTHROPIC_BASE_URL: mock.url,
      },
      stdio: ["ignore", "pipe", "pipe"],
    });
    let stderr = "";
    child.stderr.on("data", (chunk: Buffer) => {
      stderr += chunk.toString();
    });
    child.stdout.resume();
    const exited = new Promise<number | null>((resolve) => child.on("close", (code) => resolve(code)));
    // A CLI that ended before asking the model fails here at once, not at the timeout.
    await Promise.race([requested, exited]);
    await new Promise((resolve) => setTimeout(resolve, 100));
    process.kill(-child.pid!, "SIGINT");
    expect(await exited, stderr).toBe(130);
    expect(stderr).not.toContain("internal error");
    const usage = JSON.parse(await readFile(path.join(ws, ".agent-run", "usage.json"), "utf8"));
    expect(usage.conclusion).toBe("interrupted");
    const summary = await readFile(path.join(ws, ".agent-run", "summary.md"), "utf8");
    expect(summary).not.toContain("never taken");
  } finally {
    await rm(ws, { recursive: true, force: true });
  }
}, 60_000);
