// The label lives in core (the loop names models too); the library has always offered it from here.
export { modelLabel } from "../core/format.ts";
export { createAnthropicProvider } from "./anthropic.ts";
export {
  ANTHROPIC_DEFAULT_MAX_TOKENS,
  ANTHROPIC_THINKING_BUDGETS,
  buildAnthropicParams,
} from "./anthropic-request.ts";
export { classifyError, describeError } from "./classify-error.ts";
export {
  DEFAULT_IDLE_TIMEOUT_MS,
  DEFAULT_MAX_RETRIES,
  DEFAULT_REQUEST_TIMEOUT_MS,
  DEFAULT_RETRY_DELAY_MS,
  type ProviderDeps,
  resolveClientSettings,
} from "./client-config.ts";
export { ProviderConfigError, type ProviderConfigErrorCode } from "./errors.ts";
export {
  knownModelIds,
  loadModelCatalog,
  type ModelDeprecation,
  type ModelInfo,
  modelInfo,
} from "./model-catalog.ts";
export {
  EXAMPLE_MODEL,
  EXAMPLE_OPENAI_MODEL,
  KNOWN_PROVIDERS,
  type ModelRefObject,
  parseModelRef,
  toPricing,
} from "./model-ref.ts";
export { createOpenAIProvider } from "./openai.ts";
export { buildChatBody } from "./openai-chat.ts";
export { buildResponsesBody, OPENAI_REASONING_EFFORT } from "./openai-responses.ts";
export { priceFor } from "./pricing.ts";
export { createRecorder, type Recorder } from "./record.ts";
export { createReplayProvider } from "./replay.ts";
export {
  loadReplayFile,
  parseReplay,
  type ReplaySession,
  type ReplayToolCall,
  type ReplayTurn,
} from "./replay-format.ts";
export { createProvider, createProviderRouter } from "./router.ts";
