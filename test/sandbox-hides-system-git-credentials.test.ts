/**
 * A self-hosted runner keeps a token in the system or global git config (`http.<url>.extraheader`,
 * a password in a `url.<…>.insteadOf`), outside $HOME where the sandbox's tmpfs would hide it:
 * `/etc` and any file `GIT_CONFIG_SYSTEM`/`GIT_CONFIG_GLOBAL` name are readable in the sandbox.
 * A sandboxed bash that cats them, or asks git, gets a copy without the credentials; the values are
 * redacted everywhere too. Through the built CLI, with real bubblewrap.
 */
import { mkdir, mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { ROOT, runCli } from "./helpers/cli.ts";
import { NO_SANDBOX } from "./helpers/sandbox-available.ts";
import { trustWorkspace } from "./helpers/trust.ts";
import { type MockLlm, startMockLlm } from "./mock-llm/server.ts";

const HEADER_CANARY = "cnry-systemheader-8d2f61";
const URL_CANARY = "cnry-globalurlpass-4b9e07";
const reverse = (text: string) => [...text].reverse().join("");
const b64 = (text: string) => Buffer.from(text).toString("base64");

let mock: MockLlm;
let dir: string;
let configs: string;
let cli: { code: number | null; stdout: string; stderr: string };

beforeAll(async () => {
  // Outside /tmp and $HOME, which the sandbox replaces with empty tmpfs: as /etc is.
  const parent = path.join(ROOT, "node_modules", ".cache");
  await mkdir(parent, { recursive: true });
  configs = await mkdtemp(path.join(parent, "agent-run-gitconfigs-"));
  const system = path.join(configs, "system.gitconfig");
  const global = path.join(configs, "global.gitconfig");
  await writeFile(
    system,
    `[http "https://git.example.invalid/"]\n\textraheader = AUTHORIZATION: basic ${b64(`x:${HEADER_CANARY}`)}\n`,
  );
  await writeFile(
    global,
    `[url "https://ci:${URL_CANARY}@git.example.invalid/"]\n\tinsteadOf = https://git.example.invalid/\n`,
  );
  const attack = [
    `cat '${system}' '${global}' | rev`,
    `cat '${system}' | base64 -d 2>/dev/null; grep -ho 'basic [A-Za-z0-9+/=]*' '${system}' | cut -c7- | base64 -d | rev`,
    "git config --list --show-origin | rev",
    "echo end",
  ].join("; ");
  mock = await startMockLlm({
    script: [
      {
        toolCalls: [{ id: "t1", name: "bash", arguments: { command: attack } }],
        usage: { input: 10, output: 5 },
      },
      { text: "done", usage: { input: 10, output: 2 } },
    ],
  });
  dir = await trustWorkspace({
    "task.yml": "model: anthropic:claude-sonnet-4-5\nprompt: look around\ntools: [bash]\nsandbox: required\n",
    "a.txt": "a\n",
  });
  cli = await runCli([path.join(dir, "task.yml")], {
    env: {
      ANTHROPIC_API_KEY: "test-key",
      ANTHROPIC_BASE_URL: mock.url,
      GIT_CONFIG_SYSTEM: system,
      GIT_CONFIG_GLOBAL: global,
    },
  });
}, 60_000);

afterAll(async () => {
  await mock.close();
  await rm(dir, { recursive: true, force: true });
  await rm(configs, { recursive: true, force: true });
});

describe.skipIf(NO_SANDBOX)(
  "the system's and the user's git credentials in the sandbox (CLI, real bubblewrap)",
  () => {
    test("the run went through the attack and the model saw the scrubbed configs", () => {
      expect(cli.code, cli.stderr).toBe(0);
      expect(mock.requests).toHaveLength(2);
      const second = JSON.stringify(mock.requests[1]?.body);
      expect(second).toContain("end");
      expect(second).toContain(reverse("removed by agent-run's sandbox"));
    });

    test.for([HEADER_CANARY, URL_CANARY])(
      "no form of %s reaches the model, the terminal or an output",
      async (secret) => {
        const bodies = mock.requests.map((request) => JSON.stringify(request.body)).join("\n");
        const out = path.join(dir, ".agent-run");
        const files = await Promise.all(
          ["patch.diff", "summary.md", "events.jsonl"].map((name) => readFile(path.join(out, name), "utf8")),
        );
        const everything = [bodies, cli.stdout, cli.stderr, ...files].join("\n");
        for (const form of [secret, reverse(secret), b64(secret)]) expect(everything).not.toContain(form);
      },
    );
  },
);
