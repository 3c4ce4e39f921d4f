import path from "node:path";
import { expect, test } from "vitest";
import { runCli, tempWorkspace } from "./helpers/cli.ts";

/**
 * Issue 16 through the bundled CLI: `agent-run validate` warns about a model its SDK marks
 * deprecated (the SDK's date, the newest model of its family), an id neither the SDK nor the
 * catalog knows (with a did-you-mean), a known model without a price and a model whose context
 * window is unknown; openai-compatible ids are free-form. The spec stays valid (exit 0).
 */
async function validate(model: string, extra = "limits: { max_turns: 5 }\n") {
  const dir = await tempWorkspace({ "task.yml": `model: ${model}\nprompt: go\ntools: [read]\n${extra}` });
  const result = await runCli(["validate", path.join(dir, "task.yml")]);
  expect(result.stderr).toBe("");
  expect(result.code).toBe(0);
  const warnings = result.stdout.split("\nwarnings:\n")[1]?.split("\n\n")[0] ?? "";
  return { stdout: result.stdout, warnings: warnings.replace(/^.*task\.yml:/gm, "task.yml:") };
}

test("a deprecated model: the SDK's end of life and a current model of the family", async () => {
  const { warnings } = await validate("anthropic:claude-sonnet-4-5");
  expect(warnings).toBe(
    "task.yml:1:8 model: anthropic:claude-sonnet-4-5 is deprecated (@anthropic-ai/sdk@1.10.0): it reached its end of life on 2026-11-30; requests to it fail or soon will (expected a current model such as anthropic:claude-sonnet-5-5)",
  );
  const openai = await validate("openai:gpt-5-mini-2025-08-07");
  expect(openai.warnings).toMatch(
    /^task\.yml:1:8 model: openai:gpt-5-mini-2025-08-07 is deprecated \(openai@7\.55\.0\): it reach(es|ed) its end of life on 2026-12-11.* \(expected a current model such as openai:gpt-5\.4-mini\)$/,
  );
});

test("an unknown id: did you mean the known one", async () => {
  expect((await validate("anthropic:claude-sonet-5-5")).warnings).toBe(
    "task.yml:1:8 model: unknown model id 'claude-sonet-5-5': neither anthropic's SDK nor the model catalog lists it (expected a model id of anthropic (docs/providers.md)) — did you mean 'anthropic:claude-sonnet-5-5'?\n" +
      "task.yml:1:8 model: the context window of anthropic:claude-sonet-5-5 is unknown: the conversation is compacted only when the provider answers that it is too long (expected model.context_window: the model's window in tokens)",
  );
  const openai = await validate("openai:gpt-6-lunna");
  expect(openai.warnings).toContain("unknown model id 'gpt-6-lunna'");
  expect(openai.warnings).toContain("did you mean 'openai:gpt-6-luna'?");
});

test("a current model has no warning; validate shows its price and context window", async () => {
  const { stdout } = await validate("anthropic:claude-sonnet-5-5");
  expect(stdout).not.toContain("warnings:");
  expect(stdout).toContain(
    "model      anthropic:claude-sonnet-5-5  ($2.00 in / $10.00 out per million tokens; cache read $0.20, write $2.50)\ncontext    1,000,000 tokens\n",
  );
});

test("a known model without a public price; a prepare_next_turn model is checked too", async () => {
  const { warnings } = await validate(
    "openai:gpt-6-cyber",
    "limits: { max_turns: 5 }\nhooks:\n  prepare_next_turn:\n    - when: { turn_gte: 3 }\n      model: anthropic:claude-sonnet-4-5-20250929\n",
  );
  expect(warnings).toContain(
    "task.yml:1:8 model: no price is known for openai:gpt-6-cyber (trusted-access model (Daybreak Red and a model approval); no public price): its cost will be reported as unknown (expected model.pricing: { input, output } in USD per million tokens)",
  );
  expect(warnings).toContain(
    "task.yml:8:14 hooks.prepare_next_turn[0].model: anthropic:claude-sonnet-4-5-20250929 is deprecated",
  );
});

test("openai-compatible ids are free-form; only an unknown context window is said, and context_window silences it", async () => {
  const base = 'provider: openai-compatible, id: "my-local:model", base_url: "http://127.0.0.1:1/v1"';
  const { warnings } = await validate(`{ ${base} }`);
  expect(warnings).toBe(
    "task.yml:1:8 model: the context window of openai-compatible:my-local:model is unknown: the conversation is compacted only when the provider answers that it is too long (expected model.context_window: the model's window in tokens)",
  );
  const set = await validate(`{ ${base}, context_window: 32768 }`);
  expect(set.stdout).not.toContain("warnings:");
  expect(set.stdout).toContain("context    32,768 tokens\n");
});
