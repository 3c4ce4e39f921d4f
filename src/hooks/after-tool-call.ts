import { readFile, stat } from "node:fs/promises";
import path from "node:path";
import type { AfterToolCallHook, AfterToolCallResult, ImageContent, TextContent } from "../core/types.ts";
import type { AfterToolCallRule } from "../spec/types.ts";
import { callPath, matchesCall } from "./match.ts";
import {
  abnormalEnd,
  boundedOutput,
  couldNotRun,
  emitHookEnd,
  type HookDeps,
  parseJsonObject,
  resultText,
  runCommandHook,
} from "./run-command-hook.ts";

/**
 * `after_tool_call` command hooks, in order, for each successful call they match (a call that
 * failed or was blocked is left alone). What a hook prints is appended to the result the model
 * sees, bounded and labelled with the command and its exit code; nothing is appended for a
 * silent exit 0. A hook that prints a JSON object with `content` (replaces the result's text),
 * `is_error` or `terminate` patches the result instead. When the hook changes the file named by
 * the call's `path` (e.g. `eslint --fix`), the model is told so it re-reads before editing. A
 * hook that crashes or times out is reported and noted in the result; the call stands.
 */
export function createAfterToolCall(rules: AfterToolCallRule[], deps: HookDeps): AfterToolCallHook {
  return async ({ toolCall, args, result, isError }, signal) => {
    if (isError) return undefined;
    let content: (TextContent | ImageContent)[] = result.content;
    const patch: AfterToolCallResult = {};
    let changed = false;
    for (const rule of rules) {
      if (!matchesCall(rule.match, toolCall.name, args, deps.workspace)) continue;
      const call = {
        hook: "after_tool_call" as const,
        rule: rule.index,
        parts: rule.run.parts,
        timeoutMs: rule.timeoutMs,
        tool: { name: toolCall.name, id: toolCall.id, args },
        payload: {
          result: { content: resultText({ ...result, content }), is_error: patch.isError ?? isError },
        },
      };
      const target = callPath(args, deps.workspace);
      const before =
        target === undefined ? undefined : await readQuietly(path.resolve(deps.workspace, target));
      const run = await runCommandHook(call, deps, signal);
      if (run.result.canceled) {
        emitHookEnd(deps, call, run, "none", { reason: "the run was aborted" });
        break;
      }
      const abnormal = abnormalEnd(run, rule.timeoutMs);
      const code = run.result.exitCode;
      const label = `[after_tool_call \`${run.command}\``;

      if (abnormal !== undefined) {
        content = [...content, { type: "text", text: `${label} ${abnormal}; its result is unknown]` }];
        changed = true;
        emitHookEnd(deps, call, run, "error", {
          reason: abnormal,
          failure: `\`${run.command}\` ${abnormal}`,
        });
        continue;
      }
      const json = code === 0 ? parseJsonObject(run.result.stdout) : undefined;
      if (json && ("content" in json || "is_error" in json || "terminate" in json)) {
        if (typeof json.content === "string") content = [{ type: "text", text: json.content }];
        if (typeof json.is_error === "boolean") patch.isError = json.is_error;
        if (typeof json.terminate === "boolean") patch.terminate = json.terminate;
        changed = true;
        emitHookEnd(deps, call, run, "patch");
        continue;
      }
      const output = boundedOutput(run);
      const notes: string[] = [];
      if (output.text.trim() !== "" || code !== 0) {
        notes.push(`${label} exited ${code}]${output.text.trim() ? `\n${output.text.trim()}` : ""}`);
      }
      if (target !== undefined && before !== undefined) {
        const after = await readQuietly(path.resolve(deps.workspace, target));
        if (after !== before) notes.push(`${label} changed ${target}; read it again before editing it]`);
      }
      if (notes.length > 0) {
        content = [...content, { type: "text", text: notes.join("\n") }];
        changed = true;
      }
      const broken = couldNotRun(run);
      emitHookEnd(deps, call, run, broken ? "error" : notes.length > 0 ? "output" : "none", {
        ...(notes.length > 0 && { reason: notes.join(" ") }),
        outputTruncated: output.truncated,
        ...(broken && { failure: `\`${run.command}\` ${broken}` }),
      });
    }
    if (!changed) return undefined;
    return { ...patch, content };
  };
}

/** Files larger than this are not compared before and after a hook: 4 MiB. */
const MAX_COMPARED_BYTES = 4 * 1024 * 1024;

/** The file's bytes as text, or undefined when it cannot be read (missing, a directory, too big). */
async function readQuietly(file: string): Promise<string | undefined> {
  try {
    const info = await stat(file);
    if (!info.isFile() || info.size > MAX_COMPARED_BYTES) return undefined;
    return await readFile(file, "latin1");
  } catch {
    return undefined;
  }
}
