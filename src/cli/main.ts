import { EXIT } from "../run/types.ts";
import { VERSION } from "../version.ts";
import { HELP, parseCli, UsageError } from "./args.ts";

/**
 * The CLI: parses argv, runs the command and returns the exit code (DESIGN §4). Heavy modules
 * are imported only by the command that needs them, so `--version` and `--help` start fast.
 */
export async function main(argv: string[]): Promise<number> {
  let command: ReturnType<typeof parseCli>;
  try {
    command = parseCli(argv);
  } catch (error) {
    if (error instanceof UsageError) {
      process.stderr.write(`agent-run: ${error.message}\nRun 'agent-run --help' for usage.\n`);
      return EXIT.usage;
    }
    throw error;
  }
  switch (command.kind) {
    case "help":
      process.stdout.write(HELP);
      return EXIT.success;
    case "version":
      process.stdout.write(`${VERSION}\n`);
      return EXIT.success;
    case "schema": {
      const { taskJsonSchema } = await import("../spec/index.ts");
      process.stdout.write(`${JSON.stringify(taskJsonSchema(), null, 2)}\n`);
      return EXIT.success;
    }
    case "validate": {
      const { validateCommand } = await import("./validate.ts");
      return validateCommand(command);
    }
    case "run": {
      const { runCommand } = await import("./run.ts");
      return runCommand(command);
    }
  }
}
