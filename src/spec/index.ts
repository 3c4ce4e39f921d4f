export { formatSpecDuration, parseDuration } from "./duration.ts";
export { formatPath, formatSpecProblems, SpecError, type SpecErrorCode, type SpecProblem } from "./errors.ts";
export { renderTaskJsonSchema, taskJsonSchema } from "./json-schema.ts";
export { loadTask, loadTaskWithSource, MAX_SPEC_BYTES, parseInlineTask, parseTask } from "./load-task.ts";
export { type CheckTaskOptions, checkTask, describeTask } from "./preflight.ts";
export { KNOWN_TOOLS, type KnownToolName, type RawTaskSpec, taskSchema } from "./schema.ts";
export { renderTemplate, shellQuote, type TemplatePart, type TemplateRef } from "./template.ts";
export * from "./types.ts";
