import { modelLabel } from "../core/format.ts";
import type { Model } from "../core/types.ts";
import {
  knownModelIds,
  loadModelCatalogForChecks,
  type ModelInfo,
  modelInfo,
} from "../providers/model-catalog.ts";
import type { SpecProblem } from "./errors.ts";
import { closest } from "./suggest.ts";
import type { TaskSpec } from "./types.ts";

/** A problem's text, without its position (`checkModels` adds it; the run's notes use the message). */
export type ModelProblem = Pick<SpecProblem, "message" | "expected" | "suggestion">;

/**
 * What `agent-run validate` warns about each model a task may call (the spec's and each
 * prepare_next_turn's): a model its SDK marks deprecated (with the SDK's end-of-life date and the
 * newest model of its family); an `anthropic` or `openai` id that neither the SDK's list, the
 * catalog nor the supplement knows (with the closest known id); a known model without a price (its
 * cost will be unknown); a model whose context window is unknown (compacted only when the provider
 * answers that the conversation is too long). Asks the catalog first (its bundled answers, or the
 * catalog itself for an id they do not name). `now` dates the end of life.
 */
export async function checkModels(
  spec: TaskSpec,
  at: (fieldPath: PropertyKey[]) => Omit<SpecProblem, "message">,
  options: { now?: Date } = {},
): Promise<SpecProblem[]> {
  const models: Array<{ model: Model; path: PropertyKey[] }> = [{ model: spec.model, path: ["model"] }];
  for (const rule of spec.hooks.prepareNextTurn) {
    if (rule.model)
      models.push({ model: rule.model, path: ["hooks", "prepare_next_turn", rule.index, "model"] });
  }
  await loadModelCatalogForChecks(models.map((entry) => entry.model));
  const problems: SpecProblem[] = [];
  const seen = new Set<string>();
  for (const { model, path } of models) {
    const label = modelLabel(model);
    if (seen.has(label)) continue;
    seen.add(label);
    for (const problem of modelProblems(model, modelInfo(model, options), options)) {
      problems.push({ ...at(path), ...problem });
    }
  }
  return problems;
}

/** The problems of one model, in the order validate lists them. */
export function modelProblems(model: Model, info: ModelInfo, options: { now?: Date } = {}): ModelProblem[] {
  const problems: ModelProblem[] = [];
  const label = modelLabel(model);
  const deprecation = deprecationProblem(model, info, options.now ?? new Date());
  if (deprecation) problems.push(deprecation);
  if (!info.known) {
    const near = closest(model.id, knownModelIds(model.provider));
    problems.push({
      message: `unknown model id '${model.id}': neither ${model.provider}'s SDK nor the model catalog lists it`,
      expected: `a model id of ${model.provider} (docs/providers.md)`,
      ...(near && { suggestion: `'${modelLabel({ provider: model.provider, id: near })}'` }),
    });
  }
  const freeForm = model.provider !== "anthropic" && model.provider !== "openai";
  if (info.known && !freeForm && !info.pricing) {
    problems.push({
      message: `no price is known for ${label}${info.note ? ` (${info.note})` : ""}: its cost will be reported as unknown`,
      expected: "model.pricing: { input, output } in USD per million tokens",
    });
  }
  if (info.contextWindow === undefined && model.provider !== "replay") {
    problems.push({
      message: `the context window of ${label} is unknown: the conversation is compacted only when the provider answers that it is too long`,
      expected: "model.context_window: the model's window in tokens",
    });
  }
  return problems;
}

/** The deprecation warning, worded by whether the end of life is past (`now`). */
export function deprecationProblem(model: Model, info: ModelInfo, now: Date): ModelProblem | undefined {
  const deprecated = info.deprecated;
  if (!deprecated) return undefined;
  const today = now.toISOString().slice(0, 10);
  const reason = deprecated.date
    ? deprecated.date < today
      ? `it reached its end of life on ${deprecated.date}; requests to it fail or soon will`
      : `it reaches its end of life on ${deprecated.date}`
    : (deprecated.note ?? "no longer supported");
  return {
    message: `${modelLabel(model)} is deprecated (${deprecated.source}): ${reason}`,
    expected: deprecated.replacement
      ? `a current model such as ${modelLabel({ provider: model.provider, id: deprecated.replacement })}`
      : "a current model (docs/providers.md)",
  };
}

/**
 * Notes a run starts with (warning events, then the summary's notes): each model the task may call
 * that its SDK marks deprecated, and a cost limit (`maxCostUsd`: the spec's, or `--max-cost`) that
 * cannot be enforced because the spec's model has no known price. Needs the catalog loaded.
 */
export function modelRunNotes(spec: TaskSpec, options: { maxCostUsd?: number; now?: Date } = {}): string[] {
  const notes: string[] = [];
  for (const model of taskModels(spec)) {
    const problem = deprecationProblem(model, modelInfo(model, options), options.now ?? new Date());
    if (problem) notes.push(`${problem.message}; use ${problem.expected}.`);
  }
  if (options.maxCostUsd !== undefined && !modelInfo(spec.model, options).pricing) {
    notes.push(
      `max_cost_usd ($${options.maxCostUsd}) cannot be enforced: no price is known for ${modelLabel(spec.model)}; set model.pricing (USD per million tokens).`,
    );
  }
  return notes;
}

/** The summary's note for a run whose cost came out unknown, naming the models without a price. */
export function unknownCostNote(spec: TaskSpec): string {
  const unpriced = taskModels(spec)
    .filter((model) => !modelInfo(model).pricing)
    .map(modelLabel);
  const which = unpriced.length > 0 ? unpriced.join(", ") : "a model of this run";
  return `The cost is unknown: no price is known for ${which}; set model.pricing (USD per million tokens) to have it counted.`;
}

function taskModels(spec: TaskSpec): Model[] {
  const models = [spec.model];
  for (const rule of spec.hooks.prepareNextTurn) if (rule.model) models.push(rule.model);
  return models.filter((model, i) => models.findIndex((m) => modelLabel(m) === modelLabel(model)) === i);
}
