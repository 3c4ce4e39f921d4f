/**
 * Whether a provider's refusal means "this request does not fit the model's context window", from
 * the facts of the answer: the error code first, then the status with the error text.
 *
 * The code is enough where the API has one: OpenAI (Chat Completions over HTTP 400, Responses in
 * an `error` event of its stream) and the servers copying it send `context_length_exceeded`; llama.cpp's server
 * sends type `exceed_context_size_error`. Anthropic's refusal is a 400 `invalid_request_error`, a
 * type shared with every other bad request, so only its text ("prompt is too long: N tokens > M
 * maximum") tells; so do vLLM (400 `BadRequestError`, "This model's maximum context length is N
 * tokens"), OpenRouter, Gemini's OpenAI endpoint, Mistral, Groq and LM Studio. The text is read only
 * for a 400, 413 or 422 (or an in-stream error), never to decide anything else.
 */

/** Error codes and types that mean the context window is exceeded, whatever the text. */
const CONTEXT_CODES = new Set([
  "context_length_exceeded",
  "exceed_context_size_error",
  "model_context_window_exceeded",
  "string_above_max_length_context",
]);

/** Wordings of real servers, for the answers whose code is generic (see the header). */
const CONTEXT_TEXT = [
  /prompt is too long/i, // Anthropic
  /input length and `?max_tokens`? exceed context limit/i, // Anthropic, prompt plus max_tokens
  /exceeds? the (?:model's )?context window/i, // OpenAI Responses
  /maximum context length is \d+/i, // OpenAI Chat, vLLM, OpenRouter, DeepSeek
  /exceeds the available context size/i, // llama.cpp server
  /input token count .* exceeds the maximum/i, // Gemini
  /too large for model with \d+ maximum context length/i, // Mistral
  /reduce the length of the messages/i, // Groq, OpenAI Chat
  /greater than the context length/i, // LM Studio
  /context (?:length|window) (?:exceeded|is exceeded|overflow)/i,
  /maximum prompt length is \d+/i, // xAI
];

/** Statuses a context-length refusal comes with (vLLM and TGI use 400 or 422, some proxies 413). */
const CONTEXT_STATUSES = new Set([400, 413, 422]);

/**
 * True when an answer refuses the request for its length. `status` is undefined for an error
 * reported inside a stream (Responses `response.failed`, an `error` event).
 */
export function isContextLengthError(facts: {
  status?: number | undefined;
  code?: string | undefined;
  message: string;
}): boolean {
  if (facts.code !== undefined && CONTEXT_CODES.has(facts.code)) return true;
  if (facts.status !== undefined && !CONTEXT_STATUSES.has(facts.status)) return false;
  return CONTEXT_TEXT.some((pattern) => pattern.test(facts.message));
}
