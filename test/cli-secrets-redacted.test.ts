/**
 * The built CLI with `sandbox: off`, where the model's commands can read the CLI's own environment:
 * canaries in the places the CLI gets secrets from (a provider key variable, a credential-named
 * variable, the variable the spec's `api_key_env` names, whatever it is called, the checkout's git
 * credentials) must show in no output, raw, JSON-escaped, URL-encoded or base64: the outputs dir,
 * the terminal (stdout, stderr) and every request to the model. A value the model wrote into a
 * workspace file is redacted in patch.diff, and the summary says the patch must not be applied.
 */
import { execFileSync } from "node:child_process";
import { readFile } from "node:fs/promises";
import path from "node:path";
import { afterEach, describe, expect, test } from "vitest";
import { canary, eachAncestor, filesUnder, findCanaries } from "./helpers/canaries.ts";
import { runCli, tempWorkspace } from "./helpers/cli.ts";
import { NO_SANDBOX } from "./helpers/sandbox-available.ts";
import { type MockLlm, type MockReply, type RecordedRequest, startMockLlm } from "./mock-llm/server.ts";

const C = {
  providerKey: canary("env-anthropic-key"),
  npmToken: canary("env-npm-token"),
  llmKey: canary("spec-api-key-env"),
  git: canary("git-credential"),
};

const TASK = (sandbox = "off") => `name: cli-secrets
model: { provider: anthropic, id: claude-sonnet-4-6, api_key_env: LLM_ACCESS }
prompt: Do what the file says.
tools: [read, write, bash]
sandbox: ${sandbox}
`;

const READS = [
  "cat /proc/$PPID/environ",
  eachAncestor("tr '\\0' '\\n' < /proc/$p/environ"),
  "cat /proc/*/environ 2>/dev/null",
  eachAncestor("base64 -w0 /proc/$p/environ"),
  eachAncestor("base64 /proc/$p/environ"),
  "env; cat .git/config",
];
const WRITE = `{ ${eachAncestor("tr '\\0' '\\n' < /proc/$p/environ")}; } > leak.txt`;

const bash = (command: string) => ({ name: "bash", arguments: { command } });

const attacker =
  (reads: string[]) =>
  (_index: number, request: RecordedRequest): MockReply => {
    const messages = Array.isArray(request.body.messages) ? request.body.messages : [];
    const turn = messages.filter((m) => (m as { role?: string }).role === "assistant").length;
    if (turn === 0) return { toolCalls: reads.map(bash), usage: { input: 10, output: 5 } };
    if (turn === 1) return { toolCalls: [bash(WRITE)], usage: { input: 10, output: 5 } };
    return { text: "Done.", usage: { input: 10, output: 2 } };
  };

async function attack(sandbox: string, reads: string[]) {
  llm = await startMockLlm({ script: attacker(reads) });
  const workspace = await tempWorkspace({ "task.yml": TASK(sandbox), "README.md": "# demo\n" });
  const git = (...args: string[]) =>
    execFileSync("git", ["-c", "user.name=t", "-c", "user.email=t@t", ...args], { cwd: workspace });
  git("init", "-q");
  git("add", ".");
  git("commit", "-q", "-m", "base");
  git("remote", "add", "origin", `https://x-access-token:${encodeURIComponent(C.git)}@github.com/o/r.git`);
  const result = await runCli(["task.yml"], {
    cwd: workspace,
    env: {
      ANTHROPIC_BASE_URL: llm.url,
      ANTHROPIC_API_KEY: C.providerKey,
      NPM_TOKEN: C.npmToken,
      LLM_ACCESS: C.llmKey,
    },
  });
  const sent = JSON.stringify(llm.requests.map((r) => r.body));
  const texts: Record<string, string> = {
    stdout: result.stdout,
    stderr: result.stderr,
    "requests to the model": sent,
  };
  for (const [file, text] of Object.entries(await filesUnder(path.join(workspace, ".agent-run")))) {
    texts[`.agent-run/${file}`] = text;
  }
  return { result, sent, texts, workspace, requests: llm.requests };
}

let llm: MockLlm | undefined;
afterEach(async () => {
  await llm?.close();
  llm = undefined;
});

describe("the built CLI redacts every secret it knows of", { timeout: 120_000 }, () => {
  test("sandbox: off: the CLI's environment read and written by the model's commands", async () => {
    const { result, sent, texts, workspace, requests } = await attack("off", READS);
    expect(result.code, result.stderr).toBe(0);
    expect(requests).toHaveLength(3);
    // The commands did read the CLI's environment, and what came back was redacted.
    expect(sent).toContain("LLM_ACCESS=***");
    expect(sent).toContain("NPM_TOKEN=***");
    expect(findCanaries(Object.values(C), texts)).toEqual([]);
    // The model put the environment into leak.txt: patch.diff has it redacted, and says so.
    const summary = await readFile(path.join(workspace, ".agent-run", "summary.md"), "utf8");
    expect(summary).toContain("The patch contained a secret value");
    expect(await readFile(path.join(workspace, ".agent-run", "patch.diff"), "utf8")).toContain(
      "+LLM_ACCESS=***",
    );
  });

  test.skipIf(NO_SANDBOX)("sandbox: required: no process the commands can see holds a secret", async () => {
    const reads = [...READS, "ps eww -e", "cat /proc/*/environ 2>/dev/null | rev", "ps eww -e | rev"];
    const { result, texts, requests } = await attack("required", reads);
    expect(result.code, result.stderr).toBe(0);
    expect(requests).toHaveLength(3);
    expect(findCanaries(Object.values(C), texts, { reversed: true })).toEqual([]);
  });
});
