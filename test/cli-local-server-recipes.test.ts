import path from "node:path";
import { expect, test } from "vitest";
import { ProviderConfigError, parseModelRef } from "../src/providers/index.ts";
import { runCli, tempWorkspace } from "./helpers/cli.ts";

/**
 * Issue 16 through the bundled CLI: a server named as if it were a provider (`ollama:llama3`) is
 * answered with the lines to write instead (openai-compatible, its base URL, key variable and a
 * context window), and the lines it gives validate as they stand.
 */
test.for([
  [
    "ollama:llama3",
    "{ provider: openai-compatible, id: llama3, base_url: http://localhost:11434/v1, context_window: 65536 }",
  ],
  [
    "vllm:Qwen/Qwen3-8B",
    "{ provider: openai-compatible, id: Qwen/Qwen3-8B, base_url: http://localhost:8000/v1, api_key_env: VLLM_API_KEY, context_window: 65536 }",
  ],
  [
    "llama.cpp:qwen3:8b",
    "{ provider: openai-compatible, id: qwen3:8b, base_url: http://localhost:8080/v1, context_window: 65536 }",
  ],
  [
    "lmstudio:qwen/qwen3-coder-30b",
    "{ provider: openai-compatible, id: qwen/qwen3-coder-30b, base_url: http://localhost:1234/v1, context_window: 65536 }",
  ],
  [
    "OpenRouter:qwen/qwen3-coder",
    "{ provider: openai-compatible, id: qwen/qwen3-coder, base_url: https://openrouter.ai/api/v1, api_key_env: OPENROUTER_API_KEY, context_window: 262144 }",
  ],
] as const)("%s in a task file: the recipe, which validates", async ([ref, lines]) => {
  const dir = await tempWorkspace({ "task.yml": `prompt: go\nmodel: ${ref}\n` });
  const bad = await runCli(["validate", path.join(dir, "task.yml")]);
  expect(bad.code).toBe(2);
  const provider = ref.slice(0, ref.indexOf(":"));
  expect(bad.stderr).toContain(`task.yml:2:8 model: unknown provider '${provider}': `);
  expect(bad.stderr).toContain(`write model: ${lines} in the task file`);
  expect(bad.stderr).not.toContain("    at ");

  const fixed = await tempWorkspace({ "task.yml": `prompt: go\nmodel: ${lines}\n` });
  const good = await runCli(["validate", path.join(fixed, "task.yml")]);
  expect(good.stderr).toBe("");
  expect(good.code).toBe(0);
  expect(good.stdout).toContain(`model      openai-compatible:${ref.slice(ref.indexOf(":") + 1)}`);
});

test("--model ollama:llama3 gives the spec lines and the flag form with its variable", async () => {
  const dir = await tempWorkspace({ "task.yml": "prompt: go\nmodel: anthropic:claude-sonnet-5-5\n" });
  const result = await runCli([path.join(dir, "task.yml"), "--model", "ollama:llama3"], { cwd: dir });
  expect(result.code).toBe(2);
  expect(result.stderr.trim()).toBe(
    "--model: unknown provider 'ollama': Ollama serves the OpenAI Chat Completions API: write model: { provider: openai-compatible, id: llama3, base_url: http://localhost:11434/v1, context_window: 65536 } in the task file, or pass --model openai-compatible:llama3 with OPENAI_BASE_URL=http://localhost:11434/v1 (docs/providers.md, \"Local servers and OpenRouter\")",
  );
});

test("the library's parseModelRef gives the same recipe", () => {
  let error: unknown;
  try {
    parseModelRef("openrouter:qwen/qwen3-coder");
  } catch (caught) {
    error = caught;
  }
  expect(error).toBeInstanceOf(ProviderConfigError);
  expect((error as ProviderConfigError).message).toContain(
    "api_key_env: OPENROUTER_API_KEY, context_window: 262144 } in the task file, or pass --model openai-compatible:qwen/qwen3-coder with OPENAI_BASE_URL=https://openrouter.ai/api/v1 OPENAI_API_KEY=$OPENROUTER_API_KEY",
  );
});
