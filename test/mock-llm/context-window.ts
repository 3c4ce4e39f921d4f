/**
 * The mock's context window: it counts the tokens of each request's prompt with a tokenizer of its
 * own (not the runner's estimate), reports that count as the input usage, and refuses a prompt
 * over the window the way each real API does.
 */
import type { WireFormat } from "./server.ts";

/** Which real server's context-length refusal the Chat Completions endpoint copies. */
export type ChatOverflowStyle = "openai" | "vllm" | "llamacpp";

/** The parts of a request body that make up the prompt, per wire format. */
function promptParts(format: WireFormat, body: Record<string, unknown>): unknown[] {
  if (format === "anthropic") return [body.system, body.messages, body.tools];
  if (format === "responses") return [body.instructions, body.input, body.tools];
  return [body.messages, body.tools];
}

/**
 * Tokens of a request's prompt: words in pieces of up to 6 letters, numbers in pieces of up to 3
 * digits, every other visible character one token, whitespace attached to what follows. About 4
 * characters a token on prose and 3 on code, like real tokenizers, and deliberately not the
 * runner's characters-divided-by-something estimate.
 */
export function countPromptTokens(format: WireFormat, body: Record<string, unknown>): number {
  const text = JSON.stringify(promptParts(format, body));
  return text.match(/\s*(?:[A-Za-z]{1,6}|\d{1,3}|[^\sA-Za-z\d])/g)?.length ?? 0;
}

/** The refusal of a prompt of `tokens` over `window`: an HTTP error, or (Responses) an error event in a 200 stream. */
export type Overflow = { status: number; body: unknown } | { stream: string };

/**
 * Each API's context-length refusal, as the real ones answer: Anthropic a 400 invalid_request_error
 * "prompt is too long"; the Responses API, streaming, an `error` event carrying
 * `context_length_exceeded`; Chat Completions a 400 in OpenAI's shape (code
 * `context_length_exceeded`), vLLM's (`BadRequestError`, "maximum context length") or llama.cpp
 * server's (`exceed_context_size_error`).
 */
export function overflowAnswer(
  format: WireFormat,
  tokens: number,
  window: number,
  chatStyle: ChatOverflowStyle = "openai",
): Overflow {
  if (format === "anthropic") {
    return {
      status: 400,
      body: {
        type: "error",
        error: {
          type: "invalid_request_error",
          message: `prompt is too long: ${tokens} tokens > ${window} maximum`,
        },
      },
    };
  }
  if (format === "responses") {
    const created = {
      type: "response.created",
      sequence_number: 0,
      response: { id: "resp_overflow", object: "response", status: "in_progress", output: [] },
    };
    const error = {
      type: "error",
      sequence_number: 1,
      error: {
        type: "invalid_request_error",
        code: "context_length_exceeded",
        message:
          "Your input exceeds the context window of this model. Please adjust your input and try again.",
        param: "input",
      },
    };
    return {
      stream: `event: response.created\ndata: ${JSON.stringify(created)}\n\nevent: error\ndata: ${JSON.stringify(error)}\n\n`,
    };
  }
  if (chatStyle === "vllm") {
    return {
      status: 400,
      body: {
        object: "error",
        message: `This model's maximum context length is ${window} tokens. However, you requested ${tokens} tokens in the messages, Please reduce the length of the messages.`,
        type: "BadRequestError",
        param: null,
        code: 400,
      },
    };
  }
  if (chatStyle === "llamacpp") {
    return {
      status: 400,
      body: {
        error: {
          code: 400,
          message: "the request exceeds the available context size, try increasing it",
          type: "exceed_context_size_error",
          n_prompt_tokens: tokens,
          n_ctx: window,
        },
      },
    };
  }
  return {
    status: 400,
    body: {
      error: {
        message: `This model's maximum context length is ${window} tokens. However, your messages resulted in ${tokens} tokens. Please reduce the length of the messages.`,
        type: "invalid_request_error",
        param: "messages",
        code: "context_length_exceeded",
      },
    },
  };
}
