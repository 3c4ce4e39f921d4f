/**
 * What the run's process gets, split from the step's environment: a process environment with no
 * secret in it (what `/proc/<pid>/environ` of the run shows), the credentials the runner needs
 * (handed over the run's IPC channel, kept in its memory only), and the values withheld from it
 * altogether, which it only redacts.
 *
 * - `INPUT_*` (the action's inputs, keys and token included): never in the run's environment. The
 *   value of every input not in `DATA_INPUTS` (the credential inputs, and any input action.yml
 *   does not declare) is redacted.
 * - `ACTIONS_*` (the Actions runner's tokens and service URLs): never in it; redacted.
 * - A credential by name (`isSecretName`: `GITHUB_TOKEN`, `*_API_KEY`, `*_TOKEN`, …) or a variable
 *   the spec names in `api_key_env`: handed over, not in the process environment.
 * - The provider keys given as inputs: handed over as `ANTHROPIC_API_KEY` / `OPENAI_API_KEY`.
 * - Everything else stays in the process environment.
 */
import { peekTaskDocument } from "../spec/spec-file.ts";
import { isSecretName } from "../system/env.ts";
import { type ActionInputs, DATA_INPUTS, inputVariable } from "./inputs.ts";

export interface RunEnvironment {
  /** The run process's environment: nothing in it is a secret. */
  processEnv: Record<string, string>;
  /** Credentials the runner reads (provider keys, variables with credential names), by name. */
  secretEnv: Record<string, string>;
  /** Values withheld from the run that it must still redact (inputs, the Actions runner's variables). */
  secretValues: string[];
}

const DATA_INPUT_VARIABLES = new Set(DATA_INPUTS.map(inputVariable));

/** Splits `env` as the header says; `keyEnvNames` are the spec's `api_key_env` names. */
export function splitRunEnvironment(
  env: NodeJS.ProcessEnv,
  inputs: Pick<ActionInputs, "anthropicApiKey" | "openaiApiKey">,
  keyEnvNames: readonly string[] = [],
): RunEnvironment {
  const processEnv: Record<string, string> = {};
  const secretEnv: Record<string, string> = {};
  const secretValues: string[] = [];
  const keyNames = new Set(keyEnvNames);
  for (const [name, value] of Object.entries(env)) {
    if (value === undefined) continue;
    const upper = name.toUpperCase();
    if (upper.startsWith("INPUT_")) {
      if (!DATA_INPUT_VARIABLES.has(upper)) secretValues.push(value);
    } else if (upper.startsWith("ACTIONS_")) {
      secretValues.push(value);
    } else if (isSecretName(name) || keyNames.has(name)) {
      secretEnv[name] = value;
    } else {
      processEnv[name] = value;
    }
  }
  if (inputs.anthropicApiKey) secretEnv.ANTHROPIC_API_KEY = inputs.anthropicApiKey;
  if (inputs.openaiApiKey) secretEnv.OPENAI_API_KEY = inputs.openaiApiKey;
  return { processEnv, secretEnv, secretValues };
}

/**
 * The variable names the spec's models read their key from (`model.api_key_env`, also in
 * `hooks.prepare_next_turn[].model`). Read leniently: a spec that does not parse gives [] (the run
 * then reports the spec error).
 */
export async function readKeyEnvNames(taskFile: string | undefined): Promise<string[]> {
  if (taskFile === undefined) return [];
  try {
    const spec = (await peekTaskDocument(taskFile))?.value;
    if (!isRecord(spec)) return [];
    const models: unknown[] = [spec.model];
    const hooks = isRecord(spec.hooks) ? spec.hooks : {};
    if (Array.isArray(hooks.prepare_next_turn)) {
      for (const rule of hooks.prepare_next_turn) if (isRecord(rule)) models.push(rule.model);
    }
    return models.flatMap((model) =>
      isRecord(model) && typeof model.api_key_env === "string" && model.api_key_env !== ""
        ? [model.api_key_env]
        : [],
    );
  } catch {
    return [];
  }
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}
