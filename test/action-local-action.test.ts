/**
 * The action tried locally with `@github/local-action`, as docs/action.md says: the tool imports
 * the entry, calls its exported `run()` and prints the outputs. The entry is the bundle (what
 * ships as dist/index.js), the session a replay: no network, no key, no GitHub API.
 */
import { spawn } from "node:child_process";
import { mkdir, mkdtemp, readFile, writeFile } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { expect, test } from "vitest";
import { parseOutputFile } from "./fake-github/actions-runner.ts";
import { BUILT_ACTION } from "./helpers/built.ts";
import { ROOT } from "./helpers/cli.ts";

function run(args: string[], env: NodeJS.ProcessEnv): Promise<{ code: number | null; output: string }> {
  return new Promise((resolve) => {
    // local-action runs `npm exec tsx …` in the current folder: the action's repository.
    const child = spawn(path.join(ROOT, "node_modules", ".bin", "local-action"), args, {
      cwd: ROOT,
      env,
      stdio: ["ignore", "pipe", "pipe"],
    });
    let output = "";
    child.stdout.setEncoding("utf8").on("data", (chunk: string) => {
      output += chunk;
    });
    child.stderr.setEncoding("utf8").on("data", (chunk: string) => {
      output += chunk;
    });
    child.on("close", (code) => resolve({ code, output }));
  });
}

test("local-action runs the bundled entry's run() once on a replay: outputs, patch and summary", async () => {
  const work = await mkdtemp(path.join(os.tmpdir(), "agent-run-local-action-"));
  const workspace = path.join(work, "repo");
  await mkdir(workspace);
  await writeFile(
    path.join(workspace, "task.yml"),
    "name: hello\nmodel: anthropic:claude-sonnet-5-5\nprompt: Create hello.txt.\ntools: [write]\n",
  );
  await writeFile(
    path.join(workspace, "session.yml"),
    `turns:
  - tool_calls:
      - { name: write, arguments: { path: hello.txt, content: "hello from the agent\\n" } }
  - text: Wrote hello.txt.
`,
  );
  const event = path.join(work, "event.json");
  const outputFile = path.join(work, "output.txt");
  const summaryFile = path.join(work, "summary.md");
  await writeFile(event, "{}");
  await writeFile(outputFile, "");
  await writeFile(summaryFile, "");
  const dotenv = path.join(work, ".env");
  await writeFile(
    dotenv,
    [
      "INPUT_TASK=task.yml",
      "INPUT_REPLAY=session.yml",
      "INPUT_COMMENT=false",
      "GITHUB_EVENT_NAME=workflow_dispatch",
      `GITHUB_EVENT_PATH=${event}`,
      `GITHUB_WORKSPACE=${workspace}`,
      "GITHUB_REPOSITORY=octo-org/octo-repo",
      `GITHUB_OUTPUT=${outputFile}`,
      `GITHUB_STEP_SUMMARY=${summaryFile}`,
      "",
    ].join("\n"),
  );

  const { code, output } = await run(["run", ".", BUILT_ACTION, dotenv], {
    PATH: `${path.join(ROOT, "node_modules", ".bin")}${path.delimiter}${process.env.PATH}`,
    HOME: process.env.HOME,
    NO_COLOR: "1",
  });

  expect(output).not.toContain("does not export a run() function");
  expect(code).toBe(0);
  // One run: the import started nothing by itself.
  expect(output.match(/^agent-run hello · /gm)).toHaveLength(1);
  expect(await readFile(path.join(workspace, "hello.txt"), "utf8")).toBe("hello from the agent\n");
  const outputs = parseOutputFile(await readFile(outputFile, "utf8"));
  expect(outputs).toMatchObject({
    conclusion: "success",
    "exit-code": "0",
    "changed-files": "hello.txt",
    turns: "2",
    patch: path.join(workspace, ".agent-run", "patch.diff"),
  });
  expect(await readFile(path.join(workspace, ".agent-run", "patch.diff"), "utf8")).toContain(
    "+hello from the agent",
  );
  expect(await readFile(summaryFile, "utf8")).toContain("Success");
}, 120_000);
