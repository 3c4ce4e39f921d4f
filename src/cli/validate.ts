import { EXIT, isAgentRunError } from "../core/errors.ts";
import { checkTask, describeTask, formatSpecProblems, loadTaskWithSource, SpecError } from "../spec/index.ts";

/** `agent-run validate`: parse, check and describe a task without calling a model. */
export async function validateCommand(taskFile: string, vars: Record<string, string>): Promise<number> {
  const color = process.stdout.isTTY === true && !process.env.NO_COLOR;
  try {
    const { task, source } = await loadTaskWithSource(taskFile, { vars, env: process.env });
    const { errors, warnings } = await checkTask(task, { source });
    process.stdout.write(`${describeTask(task)}\n`);
    if (warnings.length > 0)
      process.stdout.write(`\nwarnings:\n${formatSpecProblems(warnings, { color })}\n`);
    if (errors.length > 0) {
      process.stderr.write(`${formatSpecProblems(errors, { color })}\n`);
      return EXIT.usage;
    }
    process.stdout.write(`\n${task.file}: valid\n`);
    return EXIT.success;
  } catch (error) {
    if (error instanceof SpecError) {
      process.stderr.write(`${formatSpecProblems(error.problems, { color })}\n`);
      return EXIT.usage;
    }
    if (isAgentRunError(error) && error.kind === "usage") {
      process.stderr.write(`agent-run: ${error.message}\n`);
      return EXIT.usage;
    }
    throw error;
  }
}
