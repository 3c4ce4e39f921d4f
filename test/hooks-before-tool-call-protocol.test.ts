import { chmod, mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import type { BeforeToolCallContext } from "../src/core/index.ts";
import { createHooks, type HookEvent } from "../src/hooks/index.ts";
import { parseTask } from "../src/spec/index.ts";
import { beforeToolCallContext } from "./helpers/hook-context.ts";

let workspace: string;
beforeAll(async () => {
  workspace = await mkdtemp(path.join(os.tmpdir(), "hooks-before-"));
});
afterAll(async () => {
  await rm(workspace, { recursive: true, force: true });
});

function hooksFor(rules: string, env: NodeJS.ProcessEnv = { PATH: process.env.PATH }) {
  const task = parseTask(
    `model: anthropic:claude-sonnet-4-5\nprompt: go\ntools: [read, write, edit, bash]\nhooks:\n  before_tool_call:\n${rules}`,
    path.join(workspace, "task.yml"),
    { env },
  );
  const events: HookEvent[] = [];
  const hooks = createHooks(task, {
    workspace,
    env,
    emit: (e) => events.push(e),
    getTurn: () => 4,
    getCost: () => 0,
  });
  const before = hooks.beforeToolCall!;
  const call = (name: string, args: Record<string, unknown>, signal = new AbortController().signal) =>
    before(ctx(name, args), signal);
  return { call, events };
}

function ctx(name: string, args: Record<string, unknown>): BeforeToolCallContext {
  return beforeToolCallContext(name, args, "call_7");
}

async function script(name: string, body: string): Promise<string> {
  const file = path.join(workspace, name);
  await writeFile(file, `#!/usr/bin/env bash\n${body}\n`);
  await chmod(file, 0o755);
  return `./${name}`;
}

describe("before_tool_call command hooks", () => {
  test("exit 0 allows; the hook gets the call as JSON on stdin and AGENT_RUN_* variables", async () => {
    const guard = await script(
      "record.sh",
      `cat > stdin.json; env | grep -E '^(AGENT_RUN_|MY_API_KEY|PLAIN)' | sort > env.txt; exit 0`,
    );
    const { call, events } = hooksFor(`    - run: ${guard}\n`, {
      PATH: process.env.PATH,
      MY_API_KEY: "sk-secret",
      PLAIN: "kept",
    });
    expect(await call("bash", { command: "ls -la" })).toBeUndefined();
    expect(JSON.parse(await readFile(path.join(workspace, "stdin.json"), "utf8"))).toEqual({
      hook: "before_tool_call",
      tool: "bash",
      arguments: { command: "ls -la" },
      tool_call_id: "call_7",
      turn: 4,
      workspace,
    });
    expect((await readFile(path.join(workspace, "env.txt"), "utf8")).trim().split("\n")).toEqual([
      "AGENT_RUN_HOOK=before_tool_call",
      "AGENT_RUN_TOOL=bash",
      "AGENT_RUN_TOOL_CALL_ID=call_7",
      "AGENT_RUN_TURN=4",
      `AGENT_RUN_WORKSPACE=${workspace}`,
      "PLAIN=kept",
    ]);
    const end = events.find((e) => e.type === "hook_end");
    expect(end).toMatchObject({
      outcome: "allow",
      exitCode: 0,
      toolCallId: "call_7",
      toolName: "bash",
      rule: 0,
    });
  });

  test("exit 2 blocks with stderr as the reason", async () => {
    const guard = await script("deny.sh", `echo "no pushing from CI" >&2; exit 2`);
    const { call, events } = hooksFor(`    - run: ${guard}\n`);
    expect(await call("bash", { command: "git push" })).toEqual({
      block: true,
      reason: "no pushing from CI",
      rule: 0,
    });
    expect(events.at(-1)).toMatchObject({
      type: "hook_end",
      outcome: "block",
      exitCode: 2,
      reason: "no pushing from CI",
      rule: 0,
    });
    expect(events.some((e) => e.type === "hook_failed")).toBe(false);
  });

  test('exit 0 with {"block": true, "reason": …} on stdout blocks', async () => {
    const guard = await script(
      "json.sh",
      `echo 'checking…'; echo '{"block": true, "reason": "touches prod"}'`,
    );
    const { call } = hooksFor(`    - run: ${guard}\n`);
    expect(await call("bash", { command: "deploy" })).toEqual({
      block: true,
      reason: "touches prod",
      rule: 0,
    });
  });

  test.for([
    ["a broken JSON object", `echo '{"block": tru'`],
    ["broken JSON on the last line", `echo 'checking…'; echo '{block: true, reason: "prod"}'`],
    ["a block that is not a boolean", `echo '{"block": "yes", "reason": "prod"}'`],
  ])("exit 0 with %s on stdout blocks (fail closed) as a hook error", async ([, body]) => {
    const guard = await script("garbled.sh", body!);
    const { call, events } = hooksFor(`    - run: ${guard}\n`);
    const verdict = await call("bash", { command: "deploy" });
    expect(verdict?.block).toBe(true);
    expect(verdict?.reason).toMatch(
      new RegExp(
        `^hook error: \`${guard.replace(".", "\\.")}\` printed a verdict (that is not valid JSON|whose \`block\` is not true or false) .*calls are blocked when a guard fails$`,
      ),
    );
    expect(events.at(-2)).toMatchObject({ type: "hook_end", outcome: "error", exitCode: 0 });
    expect(events.at(-1)).toMatchObject({ type: "hook_failed", command: guard });
  });

  test("plain output, a JSON object without a verdict, and block: false allow", async () => {
    for (const body of [
      `echo 'all good'`,
      `echo '{"note": "fine"}'`,
      `echo '{"block": false}'`,
      `echo '[1, 2]'`,
    ]) {
      const guard = await script("fine.sh", body);
      const { call } = hooksFor(`    - run: ${guard}\n`);
      expect(await call("bash", { command: "ls" }), body).toBeUndefined();
    }
  });

  test("any other exit blocks too (fail closed) and is reported as a hook error", async () => {
    const guard = await script("crash.sh", `echo "jq: command not found" >&2; exit 127`);
    const { call, events } = hooksFor(`    - run: ${guard}\n`);
    const verdict = await call("bash", { command: "ls" });
    expect(verdict?.block).toBe(true);
    expect(verdict?.reason).toBe(
      `hook error: \`${guard}\` exited 127: jq: command not found (calls are blocked when a guard fails)`,
    );
    expect(events.at(-2)).toMatchObject({ type: "hook_end", outcome: "error", exitCode: 127 });
    expect(events.at(-1)).toEqual({
      type: "hook_failed",
      hook: "before_tool_call",
      rule: 0,
      toolCallId: "call_7",
      toolName: "bash",
      command: guard,
      message: `\`${guard}\` exited 127: jq: command not found`,
    });
  });

  test("a missing hook script blocks with the shell's complaint", async () => {
    const { call } = hooksFor(`    - run: ./no-such-guard.sh\n`);
    const verdict = await call("bash", { command: "ls" });
    expect(verdict?.block).toBe(true);
    expect(verdict?.reason).toContain("exited 127");
    expect(verdict?.reason).toContain("No such file or directory");
  });

  test("a hook that outlives its timeout is killed and blocks", async () => {
    const { call, events } = hooksFor(`    - run: sleep 30\n      timeout: 1s\n`);
    const started = Date.now();
    const verdict = await call("bash", { command: "ls" });
    expect(Date.now() - started).toBeLessThan(15_000);
    expect(verdict).toEqual({
      block: true,
      reason: "hook error: `sleep 30` timed out after 1s (calls are blocked when a guard fails)",
      rule: 0,
    });
    expect(events.find((e) => e.type === "hook_end")).toMatchObject({
      timedOut: true,
      exitCode: null,
      outcome: "error",
    });
  });

  test("aborting the run kills a running hook and is not reported as a hook failure", async () => {
    const { call, events } = hooksFor(`    - run: sleep 30\n`);
    const controller = new AbortController();
    setTimeout(() => controller.abort(), 300);
    const started = Date.now();
    expect(await call("bash", { command: "ls" }, controller.signal)).toEqual({
      block: true,
      reason: "the run was aborted",
      rule: 0,
    });
    expect(Date.now() - started).toBeLessThan(10_000);
    expect(events.some((e) => e.type === "hook_failed")).toBe(false);
  });

  test("huge stdout neither blows memory nor the reason: output is bounded", async () => {
    const guard = await script(
      "loud.sh",
      `head -c 20000000 /dev/zero | tr '\\0' 'x'; echo >&2 "$(head -c 100000 /dev/zero | tr '\\0' 'y')"; exit 2`,
    );
    const { call, events } = hooksFor(`    - run: ${guard}\n`);
    const verdict = await call("bash", { command: "ls" });
    expect(verdict?.block).toBe(true);
    expect(verdict?.reason?.length).toBeLessThanOrEqual(2000);
    const end = events.find((e) => e.type === "hook_end");
    expect(end).toMatchObject({ stdoutBytes: 20_000_000, stderrBytes: 100_001 });
  });

  test("a hook that does not read its (large) stdin still allows", async () => {
    const { call } = hooksFor(`    - run: "true"\n`);
    expect(await call("write", { path: "a.txt", content: "z".repeat(2_000_000) })).toBeUndefined();
  });

  test("{{ tool.* }} values reach the command shell-quoted", async () => {
    const { call } = hooksFor(
      `    - run: printf '%s\\n' {{ tool.name }} {{ tool.path }} {{ tool.command }} > quoted.txt\n`,
    );
    await call("bash", { command: "echo $(id) 'x'; rm -rf /" });
    await call("write", { path: "dir/my file.js", content: "" });
    const lines = (await readFile(path.join(workspace, "quoted.txt"), "utf8")).split("\n");
    expect(lines).toEqual(["write", "dir/my file.js", "", ""]);
  });

  test("vars and env values that start with `-` cannot be read as options either", async () => {
    const task = parseTask(
      "model: anthropic:claude-sonnet-4-5\nprompt: go\ntools: [read]\nhooks:\n  before_stop:\n    - run: printf '%s\\n' {{ vars.v }} {{ env.E }} -- ok\n",
      path.join(workspace, "task.yml"),
      { vars: { v: "--fix" }, env: { E: "-rf /" } },
    );
    expect(task.spec.hooks.beforeStop[0]!.run.parts).toEqual(["printf '%s\\n' ./--fix './-rf /' -- ok"]);
  });

  test("a substituted value that starts with `-` cannot be read as an option", async () => {
    const { call, events } = hooksFor(
      `    - run: printf '%s\\n' {{ tool.path }} {{ tool.command }} > options.txt\n`,
    );
    await call("bash", { command: "--version; id" });
    await call("write", { path: "--config=evil.mjs", content: "" });
    const lines = (await readFile(path.join(workspace, "options.txt"), "utf8")).split("\n");
    expect(lines).toEqual(["./--config=evil.mjs", "", ""]);
    expect(
      events.filter((e) => e.type === "hook_start").map((e) => (e as { command: string }).command),
    ).toEqual([
      "printf '%s\\n' '' './--version; id' > options.txt",
      "printf '%s\\n' ./--config=evil.mjs '' > options.txt",
    ]);
  });
});

describe("declarative before_tool_call rules", () => {
  test("the first matching block wins, and its reason is the block reason", async () => {
    const { call, events } = hooksFor(
      [
        `    - match: { tool: [write, edit], path: "**/*.lock" }`,
        `      block: lock files are generated`,
        `    - match: { tool: bash, command: "git push*" }`,
        `      block: no pushing`,
        `    - match: { tool: write }`,
        `      block: read-only run`,
        "",
      ].join("\n"),
    );
    expect(await call("edit", { path: "pkg/yarn.lock" })).toEqual({
      block: true,
      reason: "lock files are generated",
      rule: 0,
    });
    expect(await call("bash", { command: "npm test && git push origin HEAD" })).toEqual({
      block: true,
      reason: "no pushing",
      rule: 1,
    });
    expect(await call("bash", { command: "git status" })).toBeUndefined();
    expect(await call("write", { path: "src/a.ts" })).toEqual({
      block: true,
      reason: "read-only run",
      rule: 2,
    });
    expect(await call("edit", { path: "src/a.ts" })).toBeUndefined();
    // The decision is the core's hook_decision (it names the rule): no event of the hooks' own.
    expect(events).toEqual([]);
  });

  test("a declarative block ends the list: later command hooks do not run", async () => {
    const { call, events } = hooksFor(`    - block: frozen\n    - run: touch ran.txt\n`);
    expect(await call("read", { path: "x" })).toEqual({ block: true, reason: "frozen", rule: 0 });
    expect(events.some((e) => e.type === "hook_start")).toBe(false);
  });
});
