import { rm } from "node:fs/promises";
import path from "node:path";
import { type RunSandbox, setupSandbox } from "../../src/run/sandbox-setup.ts";
import { parseTask } from "../../src/spec/index.ts";
import { createBashTool } from "../../src/tools/index.ts";
import { trustWorkspace } from "./trust.ts";

/**
 * A trusted git workspace holding `a.txt` (and `files`), with the run's sandbox set up for `task`
 * in it as the runner does (trusted trigger, the runner's environment). Both are undone by a
 * cleanup pushed on `cleanups`. `warnings` collects what the set-up and its session warn of.
 */
export async function runnerSandbox(
  task: string,
  cleanups: (() => Promise<void>)[],
  options: { files?: Record<string, string>; protectedGlobs?: string[]; toolOutputDir?: boolean } = {},
): Promise<{ dir: string; sandbox: RunSandbox; warnings: string[] }> {
  const warnings: string[] = [];
  const dir = await trustWorkspace({ "a.txt": "a\n", ...options.files }, { git: true });
  const { spec } = parseTask(task, path.join(dir, "task.yml"));
  const sandbox = await setupSandbox({
    spec,
    workspace: dir,
    protectedGlobs: options.protectedGlobs ?? [".git", ".git/**", ".agent-run/**"],
    env: process.env,
    trusted: true,
    ...(options.toolOutputDir && { toolOutputDir: path.join(dir, ".agent-run", "tool-output") }),
    onWarning: (message) => warnings.push(message),
  });
  cleanups.push(async () => {
    await sandbox.dispose();
    await rm(dir, { recursive: true, force: true });
  });
  return { dir, sandbox, warnings };
}

/**
 * The bash tool as the run makes it over `sandbox` in `dir`: each command prepared by the sandbox
 * and run through its session (or unsandboxed, its command server); with `session: false`, in a
 * sandbox of its own each. Full outputs go to `dir`/.agent-run/tool-output.
 */
export function runnerBashTool(sandbox: RunSandbox, dir: string, options: { session?: boolean } = {}) {
  const prepare = sandbox.bashPrepare;
  if (!prepare?.run) throw new Error(`no session or command server (sandbox ${sandbox.state})`);
  return createBashTool(dir, {
    env: process.env,
    spillDir: path.join(dir, ".agent-run", "tool-output"),
    killGraceMs: 300,
    prepare,
    ...(options.session !== false && { operations: { run: prepare.run } }),
  });
}
