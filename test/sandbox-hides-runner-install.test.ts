import { execFileSync } from "node:child_process";
import { mkdir, mkdtemp, rm, writeFile } from "node:fs/promises";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { findRunnerInstallDirs } from "../src/sandbox/runner-install.ts";
import { runCli } from "./helpers/cli.ts";
import { NO_SANDBOX } from "./helpers/sandbox-available.ts";
import { type MockLlm, startMockLlm } from "./mock-llm/server.ts";

// A self-hosted runner's install folder, laid out as the runner lays it out, outside /tmp and
// $HOME (which the sandbox hides anyway), where `/` bound read-only would show it.
const CANARIES = {
  ".credentials": "cnry-runner-credentials-9d1",
  ".credentials_rsaparams": "cnry-runner-rsaparams-4e2",
  "_diag/Worker_20261201.log": "cnry-runner-diag-log-7c3",
  "_work/other/other/deploy.env": "cnry-other-checkout-5b8",
};

let mock: MockLlm;
let root: string;
let workspace: string;
let cli: { code: number | null; stdout: string; stderr: string };

beforeAll(async () => {
  root = await mkdtemp(path.join("/var/tmp", "agent-run-runner-"));
  await writeFile(path.join(root, ".runner"), '{ "agentName": "self-hosted-1" }\n');
  for (const [name, value] of Object.entries(CANARIES)) {
    await mkdir(path.dirname(path.join(root, name)), { recursive: true });
    await writeFile(path.join(root, name), `${value}\n`);
  }
  await mkdir(path.join(root, "_work/_temp"), { recursive: true });
  workspace = path.join(root, "_work/repo/repo");
  await mkdir(workspace, { recursive: true });
  await writeFile(
    path.join(workspace, "task.yml"),
    "model: anthropic:claude-sonnet-5-5\nprompt: look around\ntools: [bash]\nsandbox: required\n",
  );
  const git = (...args: string[]) => execFileSync("git", args, { cwd: workspace, stdio: "ignore" });
  git("init", "-q");
  git("-c", "user.email=t@t", "-c", "user.name=t", "add", "-A");
  git("-c", "user.email=t@t", "-c", "user.name=t", "commit", "-qm", "start");

  const command = [
    ...Object.keys(CANARIES).map((name) => `cat '${path.join(root, name)}' | rev`),
    `ls -la '${root}' '${path.join(root, "_work")}'`,
    `find '${root}' -type f 2>/dev/null | xargs cat 2>/dev/null | rev`,
    "echo commits=$(git log --oneline | wc -l)",
    "echo fine > changed.txt",
    "echo end",
  ].join("; ");
  mock = await startMockLlm({
    script: [
      { toolCalls: [{ id: "t1", name: "bash", arguments: { command } }], usage: { input: 10, output: 5 } },
      { text: "done", usage: { input: 10, output: 2 } },
    ],
  });
  cli = await runCli([path.join(workspace, "task.yml")], {
    env: {
      ANTHROPIC_API_KEY: "test-key",
      ANTHROPIC_BASE_URL: mock.url,
      RUNNER_TEMP: path.join(root, "_work/_temp"),
      GITHUB_WORKSPACE: workspace,
    },
  });
}, 60_000);

afterAll(async () => {
  await mock?.close();
  if (root) await rm(root, { recursive: true, force: true });
});

describe("the Actions runner's install folder", () => {
  test("is found above the job's temp folder and workspace, never at /", async () => {
    const env = { RUNNER_TEMP: path.join(root, "_work/_temp"), GITHUB_WORKSPACE: workspace };
    expect(await findRunnerInstallDirs(env, "/usr/bin/node")).toEqual([root]);
    expect(await findRunnerInstallDirs({}, path.join(root, "externals/node24/bin/node"))).toEqual([root]);
    expect(await findRunnerInstallDirs({ GITHUB_WORKSPACE: "/" }, "/usr/bin/node")).toEqual([]);
  });
});

describe.skipIf(NO_SANDBOX)("a sandboxed bash cannot read a self-hosted runner's install (CLI)", () => {
  test("the run went through and the workspace and its git history were usable", async () => {
    expect(cli.stderr).not.toMatch(/error/i);
    expect(cli.code).toBe(0);
    expect(mock.requests).toHaveLength(2);
    const seen = JSON.stringify(mock.requests[1]?.body);
    expect(seen).toContain("end");
    expect(seen).toContain("commits=1");
    const patch = await import("node:fs/promises").then((fs) =>
      fs.readFile(path.join(workspace, ".agent-run/patch.diff"), "utf8"),
    );
    expect(patch).toContain("+fine");
  });

  test.for(Object.entries(CANARIES))("%s never reaches the model", ([, secret]) => {
    const bodies = mock.requests.map((request) => JSON.stringify(request.body)).join("\n");
    const reversed = [...secret].reverse().join("");
    expect(bodies).not.toContain(secret);
    expect(bodies).not.toContain(reversed);
  });
});

describe.skipIf(NO_SANDBOX)("a task in a folder of the checkout, inside a runner's install (CLI)", () => {
  test("still sees the checkout's git history (the checkout is bound back read-only)", async () => {
    const sub = path.join(workspace, "sub");
    await mkdir(sub, { recursive: true });
    await writeFile(
      path.join(sub, "task.yml"),
      "model: anthropic:claude-sonnet-5-5\nprompt: look around\ntools: [bash]\nsandbox: required\n",
    );
    const command = `echo commits=$(git log --oneline | wc -l); cat '${path.join(root, ".credentials")}'`;
    const subMock = await startMockLlm({
      script: [
        { toolCalls: [{ id: "t1", name: "bash", arguments: { command } }], usage: { input: 10, output: 5 } },
        { text: "done", usage: { input: 10, output: 2 } },
      ],
    });
    try {
      const run = await runCli([path.join(sub, "task.yml")], {
        env: {
          ANTHROPIC_API_KEY: "test-key",
          ANTHROPIC_BASE_URL: subMock.url,
          RUNNER_TEMP: path.join(root, "_work/_temp"),
          GITHUB_WORKSPACE: workspace,
        },
      });
      expect(run.code).toBe(0);
      const seen = JSON.stringify(subMock.requests[1]?.body);
      expect(seen).toContain("commits=1");
      expect(seen).toContain("No such file or directory");
      expect(seen).not.toContain(CANARIES[".credentials"]);
    } finally {
      await subMock.close();
    }
  }, 60_000);
});
