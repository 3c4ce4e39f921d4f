import { mkdir } from "node:fs/promises";
import path from "node:path";
import { describe, expect, test } from "vitest";
import type { AnyAgentTool } from "../src/core/types.ts";
import { buildTools, protectedPaths } from "../src/run/build-tools.ts";
import { setupSandbox } from "../src/run/sandbox-setup.ts";
import { parseTask } from "../src/spec/load-task.ts";
import { createBashTool, createReadTool } from "../src/tools/index.ts";
import { NO_SANDBOX } from "./helpers/sandbox-available.ts";
import { makeWorkspace, run, textOf } from "./tools-support.ts";

const TASK = `
name: spill
prompt: go
model: { provider: anthropic, id: claude-sonnet-4-5 }
tools:
  - read
  - bash: { max_output_lines: 5 }
`;

const COMMAND = "for i in $(seq 1 200); do echo line-$i; done";

describe("the full output of a cut bash command is readable by the read tool", () => {
  test("the runner's bash tool saves it in the outputs dir, inside the workspace", async () => {
    const workspace = await makeWorkspace();
    const outDir = path.join(workspace, ".agent-run");
    await mkdir(outDir, { recursive: true });
    const task = parseTask(TASK, path.join(workspace, "task.yml"));
    const tools = buildTools(task, workspace, outDir, { PATH: process.env.PATH });
    const byName = (name: string) => tools.find((tool) => tool.name === name) as AnyAgentTool;

    const result = await run(byName("bash"), { command: COMMAND });
    const fullOutputPath = (result.details as { fullOutputPath?: string }).fullOutputPath;
    expect(fullOutputPath).toBeDefined();
    expect(path.dirname(fullOutputPath!)).toBe(path.join(outDir, "tool-output"));

    const relative = path.relative(workspace, fullOutputPath!);
    const read = await run(byName("read"), { path: relative, offset: 199 });
    expect(textOf(read)).toContain("199\tline-199\n200\tline-200");
    const absolute = await run(byName("read"), { path: fullOutputPath!, limit: 1 });
    expect(textOf(absolute)).toContain("1\tline-1\n");
  });

  test.skipIf(NO_SANDBOX)(
    "in the sandbox too: the child writes it through its descriptor; bash and read both see it",
    async () => {
      const workspace = await makeWorkspace();
      const outDir = path.join(workspace, ".agent-run");
      const task = parseTask(`${TASK}sandbox: required\n`, path.join(workspace, "task.yml"));
      const env = { PATH: process.env.PATH };
      // The order of runTask: the sandbox (outDir read-only inside it) before the outputs dir exists.
      const sandbox = await setupSandbox({
        spec: task.spec,
        workspace,
        protectedGlobs: protectedPaths(task, workspace, outDir, task.spec.protect),
        env,
        trusted: true,
      });
      try {
        expect(sandbox.state).toBe("sandboxed");
        await mkdir(outDir, { recursive: true });
        const tools = buildTools(task, workspace, outDir, env, { bashPrepare: sandbox.bashPrepare! });
        const byName = (name: string) => tools.find((tool) => tool.name === name) as AnyAgentTool;
        const result = await run(byName("bash"), { command: COMMAND });
        const fullOutputPath = (result.details as { fullOutputPath?: string }).fullOutputPath!;
        expect(path.dirname(fullOutputPath)).toBe(path.join(outDir, "tool-output"));
        const relative = path.relative(workspace, fullOutputPath);
        expect(textOf(await run(byName("read"), { path: relative, offset: 200 }))).toContain("200\tline-200");
        const tail = await run(byName("bash"), { command: `tail -n 1 '${relative}'` });
        expect(textOf(tail)).toBe("line-200\n\n[Exit code: 0]");
      } finally {
        await sandbox.dispose();
      }
    },
  );

  test("createBashTool with a spillDir in the workspace and createReadTool", async () => {
    const workspace = await makeWorkspace();
    const bash = createBashTool(workspace, {
      maxLines: 5,
      spillDir: path.join(workspace, ".agent-run", "tool-output"),
    });
    const result = await run(bash, { command: COMMAND });
    expect(result.details.fullOutputPath).toBeDefined();
    const read = await run(createReadTool(workspace), { path: result.details.fullOutputPath!, offset: 200 });
    expect(textOf(read)).toContain("200\tline-200");
  });
});
