import { execFileSync } from "node:child_process";
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import {
  formatSpecProblems,
  loadTask,
  parseInlineTask,
  parseTask,
  renderTemplate,
  SpecError,
  type TemplateRef,
} from "../src/spec/index.ts";

const FULL = `name: fix-lint
model: { provider: openai, id: gpt-5-mini, thinking: low, temperature: 0, pricing: { input: 1.25, output: 10 } }
system: You work on {{ vars.project }}.
prompt: |
  Fix every error that \`npm run lint\` reports. {{ vars.extra }}
vars: { extra: "it's fine", project: demo, retries: 3 }
workdir: app
tools:
  - read
  - edit
  - bash:
      allow: ["npm run lint*", "npx eslint *"]
      deny: ["git push*"]
      timeout: 2m
      env: [NPM_TOKEN]
      max_output_lines: 400
  - write: { protect: ["**/*.lock"] }
execution: sequential
sandbox: off
limits: { max_turns: 30, max_cost_usd: 2.5, max_tokens: 1000000, timeout: 1h30m }
hooks:
  before_tool_call:
    - match: { tool: [write, edit], path: "**/*.lock" }
      block: lock files are generated
    - match: { tool: bash, command: "rm *" }
      run: ./ci/guard.sh {{ vars.extra }} {{ tool.command }}
      timeout: 5s
  after_tool_call:
    - match: { tool: [edit, write] }
      run: npx eslint --fix {{ tool.path }}
  prepare_next_turn:
    - when: { turn_gte: 10, cost_gte_usd: 0.5 }
      model: anthropic:claude-haiku-4-5
      thinking: minimal
  before_stop:
    - run: npm run lint -- --max-warnings {{ vars.retries }}
      max_attempts: 2
outputs: { dir: out/agent }
`;

function problems(run: () => unknown): string {
  try {
    run();
  } catch (error) {
    if (error instanceof SpecError) return formatSpecProblems(error.problems);
    throw error;
  }
  throw new Error("accepted");
}

describe("parseTask", () => {
  test("normalises a full spec: durations in ms, tools with options, model, hooks", () => {
    const task = parseTask(FULL, "/repo/tasks/fix.yml", { env: {} });
    expect(task.file).toBe("/repo/tasks/fix.yml");
    expect(task.dir).toBe("/repo/tasks");
    expect(task.name).toBe("fix-lint");
    const { spec } = task;
    expect(spec.model).toEqual({
      provider: "openai",
      id: "gpt-5-mini",
      temperature: 0,
      pricing: { input: 1.25, output: 10, cacheRead: 0, cacheWrite: 0 },
    });
    expect(spec.thinking).toBe("low");
    expect(spec.system).toBe("You work on demo.");
    expect(spec.prompt).toBe("Fix every error that `npm run lint` reports. it's fine\n");
    expect(spec.vars).toEqual({ extra: "it's fine", project: "demo", retries: "3" });
    expect(spec.workdir).toBe("app");
    expect(spec.tools).toEqual([
      { name: "read", options: {} },
      { name: "edit", options: {} },
      {
        name: "bash",
        options: {
          allow: ["npm run lint*", "npx eslint *"],
          deny: ["git push*"],
          timeoutMs: 120_000,
          env: ["NPM_TOKEN"],
          maxOutputLines: 400,
        },
      },
      { name: "write", options: { protect: ["**/*.lock"] } },
    ]);
    expect(spec.execution).toBe("sequential");
    expect(spec.sandbox).toBe("off");
    expect(spec.limits).toEqual({
      maxTurns: 30,
      maxCostUsd: 2.5,
      maxTokens: 1_000_000,
      timeoutMs: 5_400_000,
      windDownAt: 0.8,
    });
    expect(spec.outputs).toEqual({ dir: "out/agent" });

    const [declarative, command] = spec.hooks.beforeToolCall;
    expect(declarative).toEqual({
      index: 0,
      match: { tools: ["write", "edit"], path: "**/*.lock" },
      block: "lock files are generated",
      timeoutMs: 60_000,
    });
    expect(command?.match).toEqual({ tools: ["bash"], command: "rm *" });
    expect(command?.timeoutMs).toBe(5000);
    expect(command?.run?.text).toBe(`./ci/guard.sh 'it'\\''s fine' {{ tool.command }}`);
    expect(spec.hooks.afterToolCall[0]?.run.text).toBe("npx eslint --fix {{ tool.path }}");
    expect(spec.hooks.prepareNextTurn).toEqual([
      {
        index: 0,
        when: { turnGte: 10, costGteUsd: 0.5 },
        model: { provider: "anthropic", id: "claude-haiku-4-5" },
        thinking: "minimal",
      },
    ]);
    expect(spec.hooks.beforeStop).toEqual([
      {
        index: 0,
        run: { text: "npm run lint -- --max-warnings 3", parts: ["npm run lint -- --max-warnings 3"] },
        maxAttempts: 2,
        timeoutMs: 60_000,
      },
    ]);
  });

  test("applies defaults to a minimal spec", () => {
    const { name, spec } = parseTask("model: anthropic:claude-sonnet-4-5\nprompt: go\n", "/x/lint-fix.yaml");
    expect(name).toBe("lint-fix");
    expect(spec.tools.map((t) => t.name)).toEqual(["read", "write", "edit", "grep", "find", "ls"]);
    expect(spec.execution).toBe("parallel");
    expect(spec.sandbox).toBe("auto");
    expect(spec.workdir).toBe(".");
    expect(spec.outputs.dir).toBe(".agent-run");
    expect(spec.limits).toEqual({ windDownAt: 0.8 });
    expect(spec.compaction).toEqual({ enabled: true, threshold: 0.85, target: 0.4 });
    expect(spec.thinking).toBeUndefined();
    expect(spec.system).toBeUndefined();
  });

  test("--var overrides and adds variables; env fills {{ env.X }}", () => {
    const text =
      "model: anthropic:claude-sonnet-4-5\nprompt: '{{ vars.a }}/{{ vars.b }}/{{env.BRANCH}}'\nvars: { a: one }\n";
    const task = parseTask(text, "t.yml", { vars: { a: "uno", b: "dos" }, env: { BRANCH: "main" } });
    expect(task.spec.prompt).toBe("uno/dos/main");
  });

  test("an undefined variable is an error at its position, never an empty string", () => {
    const text = "model: anthropic:claude-sonnet-4-5\nprompt: >-\n  Fix\n  {{ vars.dir }} now\n";
    expect(problems(() => parseTask(text, "t.yml", { env: {} }))).toBe(
      "t.yml:4:3 prompt: undefined variable 'vars.dir' (expected a variable defined under vars: or passed with --var dir=VALUE)",
    );
    expect(parseTask(text, "t.yml", { vars: { dir: "src" } }).spec.prompt).toBe("Fix src now");
  });

  test("flag overrides are checked and named by their flag", () => {
    const text = "model: anthropic:claude-sonnet-4-5\nprompt: hi\n";
    expect(problems(() => parseTask(text, "t.yml", { vars: { "bad-name": "x" } }))).toBe(
      "--var: bad variable name 'bad-name' (expected a name like my_var (letters, digits, _))",
    );
    expect(problems(() => parseTask(text, "t.yml", { modelOverride: "gpt-5" }))).toBe(
      `--model: bad model reference 'gpt-5' (expected "provider:id")`,
    );
    expect(problems(() => parseTask(text, "t.yml", { promptOverride: "do {{ vars.nope }}" }))).toBe(
      "--prompt: undefined variable 'vars.nope' (expected a variable defined under vars: or passed with --var nope=VALUE)",
    );
    const task = parseTask(text, "t.yml", { modelOverride: "openai:gpt-5-mini", promptOverride: "other" });
    expect(task.spec.model).toEqual({ provider: "openai", id: "gpt-5-mini" });
    expect(task.spec.prompt).toBe("other");
  });

  test("--prompt and --model make a file's missing prompt and model acceptable", () => {
    const task = parseTask("tools: [read]\n", "t.yml", {
      promptOverride: "p",
      modelOverride: "replay:session",
    });
    expect(task.spec.model).toEqual({ provider: "replay", id: "session" });
  });
});

describe("hook command templating", () => {
  test("values substituted into hook commands reach bash as single words, unexpanded", () => {
    const nasty = `a b $(echo pwned) 'q' "d" ; rm -rf x`;
    const text = `model: anthropic:claude-sonnet-4-5
prompt: go
tools: [read, edit]
hooks:
  after_tool_call:
    - run: printf '%s|' {{ vars.v }} {{ tool.path }}
`;
    const rule = parseTask(text, "t.yml", { vars: { v: nasty } }).spec.hooks.afterToolCall[0]!;
    const command = renderTemplate(
      rule.run.parts,
      (ref: TemplateRef) => (ref.name === "path" ? "my file.js" : ""),
      {
        quote: true,
      },
    );
    expect(execFileSync("bash", ["-c", command], { encoding: "utf8" })).toBe(`${nasty}|my file.js|`);
  });
});

describe("loadTask", () => {
  let dir: string;
  beforeAll(async () => {
    dir = await mkdtemp(path.join(os.tmpdir(), "spec-load-"));
  });
  afterAll(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  test("reads a file and resolves its directory", async () => {
    const file = path.join(dir, "task.yml");
    await writeFile(file, "model: anthropic:claude-sonnet-4-5\nprompt: hi\n");
    const task = await loadTask(file);
    expect(task.dir).toBe(dir);
    expect(task.name).toBe("task");
  });

  test("a missing file is spec_not_found, named as given", async () => {
    const file = path.join(dir, "nope.yml");
    const error = await loadTask(file).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(SpecError);
    expect((error as SpecError).code).toBe("spec_not_found");
    expect((error as SpecError).shortMessage).toBe(`${file}: task file not found`);
  });
});

describe("parseInlineTask", () => {
  test("builds a task from --prompt and --model alone", () => {
    const task = parseInlineTask({
      cwd: "/work/x",
      promptOverride: "fix it",
      modelOverride: "anthropic:claude-haiku-4-5",
    });
    expect(task.file).toBe("");
    expect(task.dir).toBe("/work/x");
    expect(task.spec.prompt).toBe("fix it");
    expect(task.spec.model.id).toBe("claude-haiku-4-5");
  });

  test("without them it names both missing flags", () => {
    expect(problems(() => parseInlineTask({ cwd: "/w" }))).toBe(
      "--model: a task file or --model is required\n--prompt: a task file or --prompt is required",
    );
  });
});
