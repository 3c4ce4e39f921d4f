/**
 * Servers people name as if they were providers (`ollama:llama3`). Each speaks the OpenAI Chat
 * Completions API, so it is the `openai-compatible` provider with a base URL; docs/providers.md
 * ("Local servers and OpenRouter") has the same recipes. An unknown provider that is one of these
 * is answered with the exact model lines to write instead of a bare "unknown provider".
 */
export interface ServerRecipe {
  /** What people write before the colon. */
  name: string;
  title: string;
  baseUrl: string;
  /** The variable holding the key, when the server wants one. */
  apiKeyEnv?: string;
  /** A context window to start from (tokens); the server's own setting must match it. */
  contextWindow: number;
  /** An id to show when the model ref has none. */
  exampleId: string;
}

export const SERVER_RECIPES: readonly ServerRecipe[] = [
  {
    name: "ollama",
    title: "Ollama",
    baseUrl: "http://localhost:11434/v1",
    contextWindow: 65_536,
    exampleId: "qwen3-coder:30b",
  },
  {
    name: "vllm",
    title: "vLLM",
    baseUrl: "http://localhost:8000/v1",
    apiKeyEnv: "VLLM_API_KEY",
    contextWindow: 65_536,
    exampleId: "Qwen/Qwen3-Coder-30B-A3B-Instruct",
  },
  {
    name: "llamacpp",
    title: "llama.cpp's llama-server",
    baseUrl: "http://localhost:8080/v1",
    contextWindow: 65_536,
    exampleId: "qwen3-coder",
  },
  {
    name: "lmstudio",
    title: "LM Studio",
    baseUrl: "http://localhost:1234/v1",
    contextWindow: 65_536,
    exampleId: "qwen/qwen3-coder-30b",
  },
  {
    name: "openrouter",
    title: "OpenRouter",
    baseUrl: "https://openrouter.ai/api/v1",
    apiKeyEnv: "OPENROUTER_API_KEY",
    contextWindow: 262_144,
    exampleId: "qwen/qwen3-coder",
  },
];

/** Other spellings of the same servers. */
const ALIASES: Record<string, string> = {
  "llama.cpp": "llamacpp",
  "llama-cpp": "llamacpp",
  "llama-server": "llamacpp",
  llamaserver: "llamacpp",
  "lm-studio": "lmstudio",
  lms: "lmstudio",
};

/** The recipe for a provider name, case-insensitively, or undefined. */
export function serverRecipe(provider: string): ServerRecipe | undefined {
  const name = provider.trim().toLowerCase();
  const key = ALIASES[name] ?? name;
  return SERVER_RECIPES.find((recipe) => recipe.name === key);
}

/**
 * One line saying what to write instead: the spec's model as a YAML flow mapping (valid as it
 * stands) and the `--model` form with its variables.
 */
export function recipeHint(recipe: ServerRecipe, id: string): string {
  const modelId = id.trim() === "" ? recipe.exampleId : id.trim();
  const fields = [
    "provider: openai-compatible",
    `id: ${yamlScalar(modelId)}`,
    `base_url: ${recipe.baseUrl}`,
    ...(recipe.apiKeyEnv ? [`api_key_env: ${recipe.apiKeyEnv}`] : []),
    `context_window: ${recipe.contextWindow}`,
  ];
  const flagEnv = [
    `OPENAI_BASE_URL=${recipe.baseUrl}`,
    ...(recipe.apiKeyEnv ? [`OPENAI_API_KEY=$${recipe.apiKeyEnv}`] : []),
  ].join(" ");
  return (
    `${recipe.title} serves the OpenAI Chat Completions API: write model: { ${fields.join(", ")} } ` +
    `in the task file, or pass --model openai-compatible:${modelId} with ${flagEnv} ` +
    `(docs/providers.md, "Local servers and OpenRouter")`
  );
}

/** Quoted when plain YAML would read it otherwise (`qwen3:8b` is fine; `#x` or `a: b` is not). */
function yamlScalar(text: string): string {
  return /^[A-Za-z0-9][\w./:@+-]*$/.test(text) && !/:\s|:$/.test(text) ? text : JSON.stringify(text);
}

/** The recipe when `ref` ("provider:id") names one of these servers as its provider. */
export function serverNamed(ref: string): ServerRecipe | undefined {
  const colon = ref.indexOf(":");
  return colon > 0 ? serverRecipe(ref.slice(0, colon)) : undefined;
}
