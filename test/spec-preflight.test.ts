import { chmod, mkdir, mkdtemp, rm, writeFile } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { checkTask, describeTask, formatSpecProblems, loadTask } from "../src/spec/index.ts";

let dir: string;
beforeAll(async () => {
  dir = await mkdtemp(path.join(os.tmpdir(), "spec-preflight-"));
  await mkdir(path.join(dir, "ci"));
  await writeFile(path.join(dir, "ci/guard.sh"), "#!/bin/sh\nexit 0\n");
  await chmod(path.join(dir, "ci/guard.sh"), 0o755);
  await writeFile(path.join(dir, "ci/deny.sh"), '#!/bin/sh\necho "no" >&2\nexit 2\n');
  await chmod(path.join(dir, "ci/deny.sh"), 0o755);
  await writeFile(path.join(dir, "ci/plain.sh"), "#!/bin/sh\nexit 0\n");
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

async function check(name: string, yaml: string) {
  const file = path.join(dir, name);
  await writeFile(file, yaml);
  const task = await loadTask(file, { env: { SECRET_TOKEN: "s3cr3t" } });
  const result = await checkTask(task, { env: { PATH: "/usr/bin:/bin" } });
  const rel = (text: string) => text.replaceAll(`${path.relative(process.cwd(), file)}:`, `${name}:`);
  return {
    task,
    errors: rel(formatSpecProblems(result.errors)),
    warnings: rel(formatSpecProblems(result.warnings)),
  };
}

describe("checkTask", () => {
  test("hook commands must exist and be executable; a guard that cannot block is a trap", async () => {
    const { errors, warnings } = await check(
      "hooks.yml",
      `model: anthropic:claude-sonnet-5-5
prompt: go
tools: [read, bash: { timeout: 30s }]
limits: { max_turns: 5 }
hooks:
  before_tool_call:
    - run: ./ci/guard.sh
    - run: ./ci/deny.sh
    - run: ./ci/missing.sh
    - run: ./ci/plain.sh
    - run: FOO=1 no-such-program-xyz --flag
  before_stop:
    - run: if true; then exit 0; fi
`,
    );
    expect(errors).toBe(
      [
        "hooks.yml:9:12 hooks.before_tool_call[2].run: hook command ./ci/missing.sh does not exist (expected a file at " +
          `${dir}/ci/missing.sh)`,
        "hooks.yml:10:12 hooks.before_tool_call[3].run: hook command ./ci/plain.sh is not executable (expected chmod +x ./ci/plain.sh)",
      ].join("\n"),
    );
    expect(warnings).toBe(
      [
        'hooks.yml:7:12 hooks.before_tool_call[0].run: before_tool_call hook ./ci/guard.sh can only allow or fail: it never exits 2 nor prints {"block": true}, so a refusal reads as a hook error (expected exit 2 with the reason on stderr, or {"block": true, "reason": "…"} on stdout)',
        "hooks.yml:11:12 hooks.before_tool_call[4].run: hook command 'no-such-program-xyz' is not on PATH here (expected a program on the PATH the run will have)",
      ].join("\n"),
    );
  });

  test("warns about bash without timeout, unreachable deny, dead rules, secrets in the prompt, unpriced cost limits", async () => {
    const { errors, warnings } = await check(
      "traps.yml",
      `model: { provider: openai-compatible, id: qwen3, base_url: "http://127.0.0.1:1/v1" }
prompt: "token is {{ env.SECRET_TOKEN }}"
tools:
  - read
  - bash:
      allow: ["npm run lint*"]
      deny: ["npm run lint:fix*", "curl *"]
limits: { max_cost_usd: 1 }
hooks:
  before_tool_call:
    - match: { tool: write }
      block: read only
`,
    );
    expect(errors).toBe("");
    expect(warnings).toBe(
      [
        "traps.yml:1:8 model: the context window of openai-compatible:qwen3 is unknown: the conversation is compacted only when the provider answers that it is too long (expected model.context_window: the model's window in tokens)",
        "traps.yml:2:9 prompt: env.SECRET_TOKEN looks like a secret: the model, the transcript and the outputs will see its value",
        "traps.yml:5:5 tools[1]: bash has no timeout: commands get the tool's default, and the model may ask for longer (expected timeout: 120s (or what your commands need))",
        "traps.yml:7:35 tools[1].bash.deny[1]: deny 'curl *' is redundant: the allow list already refuses every command it matches (it only makes the refusal's reason clearer)",
        "traps.yml:8:25 limits.max_cost_usd: max_cost_usd cannot be enforced: no price is known for openai-compatible:qwen3 (expected model.pricing: { input, output } in USD per million tokens)",
        "traps.yml:11:22 hooks.before_tool_call[0].match.tool: this rule can never fire: write is not in tools",
      ].join("\n"),
    );
  });

  test("a missing workspace is an error; no limits at all is a warning", async () => {
    const { errors, warnings } = await check(
      "bare.yml",
      "model: anthropic:claude-sonnet-5-5\nprompt: go\nworkdir: nowhere\n",
    );
    expect(errors).toBe(
      `bare.yml:3:10 workdir: workspace ${dir}/nowhere is not a directory (expected an existing directory)`,
    );
    expect(warnings).toBe(
      "bare.yml:1:1 no limits: nothing but the model stops this run (expected limits: { max_turns, max_cost_usd, timeout })",
    );
  });
});

describe("describeTask", () => {
  test("prints the effective configuration: model price, tools with policies, hooks in order, limits", async () => {
    const { task } = await check(
      "lint.yml",
      `name: lint-fix
model: anthropic:claude-sonnet-5-5
prompt: |
  Fix every error that npm run lint reports.
  Keep changes small.
tools:
  - read
  - edit
  - bash: { allow: ["npm run lint*"], timeout: 90s }
limits: { max_turns: 12, max_cost_usd: 1.5, timeout: 5m }
hooks:
  before_tool_call:
    - match: { tool: edit, path: "**/*.lock" }
      block: generated
  after_tool_call:
    - match: { tool: edit }
      run: npx eslint --fix {{ tool.path }}
  prepare_next_turn:
    - when: { turn_gte: 8 }
      model: anthropic:claude-haiku-5-5
  before_stop:
    - run: npm run lint
      max_attempts: 2
`,
    );
    const text = describeTask(task).replaceAll(dir, "<dir>");
    expect(text).toMatchInlineSnapshot(`
      "task       lint-fix  (<dir>/lint.yml)
      model      anthropic:claude-sonnet-5-5  ($2.00 in / $10.00 out per million tokens; cache read $0.20, write $2.50)
      context    1,000,000 tokens
      thinking   off
      workspace  <dir>
      outputs    <dir>/.agent-run
      execution  parallel · sandbox auto
      limits     max_turns 12 · max_cost_usd $1.5 · max_tokens none · timeout 5m
      long runs  compacted at 85% of the context window, down to 40% · told to wrap up at 80% of a limit
      caps       command output 32MiB · saved outputs 256MiB · /tmp 1GiB · /dev/shm 1GiB · $HOME 1GiB · processes 1024 · turn results 4MiB · tool calls per turn 512
      tools
        read   defaults
        edit   defaults
        bash   allow only: npm run lint* · timeout 90s
      hooks (in the order they run)
        before_tool_call[0]  edit on **/*.lock → block "generated"
        after_tool_call[0]   edit → run npx eslint --fix {{ tool.path }} (timeout 1m)
        prepare_next_turn[0] from turn 8 → model anthropic:claude-haiku-5-5
        before_stop[0]       run npm run lint (at most 2 attempts, timeout 1m)
      prompt     Fix every error that npm run lint reports.  (62 chars)"
    `);
  });
});
