import { readFile, rm, writeFile } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { runCli } from "./helpers/cli.ts";
import { NO_SANDBOX } from "./helpers/sandbox-available.ts";
import { trustWorkspace } from "./helpers/trust.ts";
import { type MockLlm, startMockLlm } from "./mock-llm/server.ts";

// Canaries in the runner's real environment (the CLI is a child process, so they are also in its
// /proc/<pid>/environ), under a credential-looking name, GitHub's name and a harmless-looking one.
const CANARIES = {
  CANARY_API_KEY: "cnry-apikey-7f3e91d2",
  GITHUB_TOKEN: "ghs_cnryGithubToken4242",
  DEPLOY_NOTE: "cnry-plainname-5a6b7c",
};
const GIT_CANARY = "cnry-githeader-31337";
const reverse = (text: string) => [...text].reverse().join("");
const b64 = (text: string) => Buffer.from(text).toString("base64");

const attack = (runnerFile: string) =>
  [
    "env",
    "env | rev",
    "cat /proc/$PPID/environ | tr '\\0' '\\n'",
    "cat /proc/$PPID/environ | rev",
    "for p in /proc/[0-9]*; do cat $p/environ 2>/dev/null | rev; cat $p/cmdline 2>/dev/null | rev; done",
    "ps eww; ps auxeww | rev",
    "git config --get-regexp extraheader",
    "git config --get-regexp extraheader | rev",
    "cat .git/config | rev",
    'echo INJECTED=1 >> "$GITHUB_ENV"',
    // The path is no secret to an attacker who knows the runner's layout: the script names it.
    `echo INJECTED=1 >> '${runnerFile}'`,
    `cat '${runnerFile}' | rev`,
    "echo end",
  ].join("; ");

let mock: MockLlm;
let dir: string;
let runnerFile: string;
let cli: { code: number | null; stdout: string; stderr: string };

beforeAll(async () => {
  runnerFile = path.join(os.tmpdir(), `agent-run-github-env-${process.pid}-${Date.now()}`);
  await writeFile(runnerFile, "SECRET_FROM_EARLIER_STEP=cnry-earlier-step-1234\n");
  mock = await startMockLlm({
    script: [
      {
        toolCalls: [{ id: "t1", name: "bash", arguments: { command: attack(runnerFile) } }],
        usage: { input: 10, output: 5 },
      },
      { text: "done", usage: { input: 10, output: 2 } },
    ],
  });
  const header = `AUTHORIZATION: basic ${b64(`x-access-token:${GIT_CANARY}`)}`;
  dir = await trustWorkspace(
    {
      "task.yml":
        "model: anthropic:claude-sonnet-4-5\nprompt: look around\ntools: [bash]\nsandbox: required\n",
      "a.txt": "a\n",
    },
    { extraheader: header },
  );
  cli = await runCli([path.join(dir, "task.yml")], {
    env: {
      ...CANARIES,
      ANTHROPIC_API_KEY: "test-key",
      ANTHROPIC_BASE_URL: mock.url,
      GITHUB_ENV: runnerFile,
    },
  });
}, 60_000);

afterAll(async () => {
  await mock.close();
  await rm(dir, { recursive: true, force: true });
  await rm(runnerFile, { force: true });
});

describe.skipIf(NO_SANDBOX)(
  "secrets never reach the model from a sandboxed bash (CLI, real bubblewrap)",
  () => {
    test("the run went through the attack and the model saw its output", () => {
      expect(cli.code).toBe(0);
      expect(mock.requests).toHaveLength(2);
      const second = JSON.stringify(mock.requests[1]?.body);
      expect(second).toContain("end");
      // EROFS, or EACCES before it where the sandbox runs as root without capabilities.
      expect(second).toMatch(/Read-only file system|Permission denied/);
    });

    const secrets = [...Object.values(CANARIES), GIT_CANARY, "cnry-earlier-step-1234"];
    test.for(secrets)("no form of %s in any request to the model", (secret) => {
      const bodies = mock.requests.map((request) => JSON.stringify(request.body)).join("\n");
      for (const form of [secret, reverse(secret), b64(secret)]) expect(bodies).not.toContain(form);
    });

    test.for(secrets)("no form of %s in the terminal or the output files", async (secret) => {
      const out = path.join(dir, ".agent-run");
      const files = await Promise.all(
        ["patch.diff", "usage.json", "summary.md", "events.jsonl"].map((name) =>
          readFile(path.join(out, name), "utf8"),
        ),
      );
      const everything = [cli.stdout, cli.stderr, ...files].join("\n");
      for (const form of [secret, reverse(secret)]) expect(everything).not.toContain(form);
    });

    test("$GITHUB_ENV is neither named to the agent nor writable by it", async () => {
      expect(await readFile(runnerFile, "utf8")).toBe("SECRET_FROM_EARLIER_STEP=cnry-earlier-step-1234\n");
    });
  },
);
