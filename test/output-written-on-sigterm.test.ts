import { execFileSync, spawn } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import { expect, test } from "vitest";
import { copyWithoutGit, gitRepo, tempDir } from "./output-helpers.ts";

const outputModule = path.resolve("src/output/index.ts");
const processModule = path.resolve("src/system/process.ts");

/**
 * A stand-in for the runner: snapshot, live events, one tool (a child process group) that changes
 * files and then hangs; on SIGTERM it aborts the tool, diffs and writes every output as "interrupted".
 */
const runnerScript = `
  import { readFileSync, writeSync } from "node:fs";
  import path from "node:path";
  import { runProcess } from ${JSON.stringify(processModule)};
  import { createEventsWriter, createRedactor, diffWorkspace, disposeSnapshot, snapshotWorkspace, writeOutputs } from ${JSON.stringify(outputModule)};
  const [root, pidFile] = process.argv.slice(1);
  const out = path.join(root, ".agent-run");
  const redactor = createRedactor({ env: process.env });
  const events = createEventsWriter(path.join(out, "events.jsonl"), { redact: redactor.redact });
  const snapshot = await snapshotWorkspace(root, { exclude: [out] });
  const controller = new AbortController();
  const started = Date.now();
  events.write({ type: "tool_execution_start", toolName: "bash", args: { command: "long task" } });
  const tool = runProcess("sh", ["-c", "echo changed > a.txt; printf 'x\\\\000y' > new.bin; rm gone.txt; echo $$ > " + pidFile + "; sleep 60"], { cwd: root, signal: controller.signal });
  process.once("SIGTERM", async () => {
    controller.abort();
    const result = await tool;
    events.write({ type: "tool_execution_end", toolName: "bash", canceled: result.canceled });
    let diff = null;
    let diffError;
    try { diff = await diffWorkspace(snapshot, root); } catch (error) { diffError = String(error); }
    const record = {
      taskName: "t", description: "a task", conclusion: "interrupted", reason: "SIGTERM", model: "replay:x",
      models: ["replay:x"], turns: 1, durationMs: Date.now() - started,
      usage: { input: 1, output: 1, cacheRead: 0, cacheWrite: 0, totalTokens: 2, cost: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0, total: 0 } },
      toolCalls: { bash: { calls: 1, errors: 1, blocked: 0, durationMs: result.durationMs } },
      blocked: [], hookFailures: [], lastAssistantText: "Running it. Key " + process.env.PLANTED_API_KEY,
    };
    await writeOutputs(out, { record, diff, diffError, redactor });
    await events.close();
    await disposeSnapshot(snapshot);
    process.exit(143);
  });
  events.write({ type: "message_end", text: "secret " + process.env.PLANTED_API_KEY });
  const pidWritten = () => { try { return readFileSync(pidFile, "utf8").trim() !== ""; } catch { return false; } };
  while (!pidWritten()) await new Promise((resolve) => setTimeout(resolve, 20));
  writeSync(1, "ready\\n");
`;

/** Processes of a group that are not zombies (a container's PID 1 may be slow to reap orphans). */
function liveProcessesInGroup(pgid: number): string[] {
  return execFileSync("ps", ["-eo", "pgid=,stat=,args="], { encoding: "utf8" })
    .split("\n")
    .map((line) => line.trim().split(/\s+/))
    .filter(([group, stat]) => Number(group) === pgid && !stat?.startsWith("Z"))
    .map((fields) => fields.slice(2).join(" "));
}

test("a run killed with SIGTERM mid-tool writes all four outputs, and its patch applies", async () => {
  const root = gitRepo({ "a.txt": "a\n", "gone.txt": "bye\n" });
  const start = copyWithoutGit(root);
  const pidFile = path.join(tempDir(), "tool.pid");
  const secret = "sk-planted-0123456789abcdef";
  const child = spawn(process.execPath, ["--input-type=module", "-e", runnerScript, root, pidFile], {
    stdio: ["ignore", "pipe", "inherit"],
    env: { ...process.env, PLANTED_API_KEY: secret },
  });
  await new Promise<void>((resolve, reject) => {
    child.stdout.on("data", (chunk: Buffer) => chunk.toString().includes("ready") && resolve());
    child.once("exit", (code) => reject(new Error(`runner exited early with ${code}`)));
  });
  const toolGroup = Number(fs.readFileSync(pidFile, "utf8"));
  const killedAt = performance.now();
  child.kill("SIGTERM");
  const code = await new Promise((resolve) => child.once("exit", resolve));
  const elapsed = performance.now() - killedAt;

  expect(code).toBe(143);
  expect(elapsed).toBeLessThan(5000);
  expect(liveProcessesInGroup(toolGroup)).toEqual([]);
  const out = path.join(root, ".agent-run");
  expect(fs.readdirSync(out).sort()).toEqual(["events.jsonl", "patch.diff", "summary.md", "usage.json"]);
  const usage = JSON.parse(fs.readFileSync(path.join(out, "usage.json"), "utf8"));
  expect(usage).toMatchObject({ conclusion: "interrupted", files_changed: 3, tool_calls: { total: 1 } });
  const events = fs.readFileSync(path.join(out, "events.jsonl"), "utf8").trimEnd().split("\n");
  expect(events.map((line) => JSON.parse(line).type)).toEqual([
    "tool_execution_start",
    "message_end",
    "tool_execution_end",
  ]);
  expect(fs.readFileSync(path.join(out, "summary.md"), "utf8")).toContain("Interrupted");
  for (const file of fs.readdirSync(out))
    expect(fs.readFileSync(path.join(out, file), "utf8")).not.toContain(secret);

  execFileSync("git", ["apply", "--check", path.join(out, "patch.diff")], { cwd: start });
  execFileSync("git", ["apply", path.join(out, "patch.diff")], { cwd: start });
  expect(fs.readFileSync(path.join(start, "a.txt"), "utf8")).toBe("changed\n");
  expect(fs.readFileSync(path.join(start, "new.bin"))).toEqual(Buffer.from("x\0y"));
  expect(fs.existsSync(path.join(start, "gone.txt"))).toBe(false);
});
