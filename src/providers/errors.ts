import { AgentRunError } from "../core/errors.ts";

/** Why a provider could not be configured. Stable: callers branch on `code`, never on the message. */
export type ProviderConfigErrorCode =
  | "bad_model_ref"
  | "unknown_provider"
  | "missing_api_key"
  | "bad_replay_file"
  | "bad_option";

/**
 * A configuration problem found before any request is sent (bad model reference, missing API key,
 * unreadable replay file). The runner maps it to exit code 2 or 4 as it sees fit; `shortMessage`
 * is one line for annotations, `message` the full text.
 */
export class ProviderConfigError extends AgentRunError {
  declare readonly code: ProviderConfigErrorCode;

  constructor(
    code: ProviderConfigErrorCode,
    shortMessage: string,
    options: {
      detail?: string;
      location?: { file: string; line: number; column: number };
      cause?: unknown;
    } = {},
  ) {
    const where = options.location
      ? `${options.location.file}:${options.location.line}:${options.location.column}: `
      : "";
    super("usage", code, `${where}${shortMessage}${options.detail ? `\n${options.detail}` : ""}`, {
      shortMessage: `${where}${shortMessage}`,
      ...(options.location && { location: options.location }),
      cause: options.cause,
    });
    this.name = "ProviderConfigError";
  }
}
