import { execFileSync } from "node:child_process";
import { mkdir, mkdtemp, symlink, writeFile } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { expect, test } from "vitest";
import { ROOT } from "./helpers/cli.ts";

/**
 * The library as a user gets it: built with `tsc -p tsconfig.build.json`, imported by package
 * name from another project, both at run time (Node) and for types (tsc).
 */
test("import { Agent } from 'agent-run' works from the built package, types included", async () => {
  const bin = path.join(ROOT, "node_modules", ".bin");
  execFileSync(path.join(bin, "tsc"), ["-p", "tsconfig.build.json"], { cwd: ROOT });
  const consumer = await mkdtemp(path.join(os.tmpdir(), "agent-run-consumer-"));
  await mkdir(path.join(consumer, "node_modules"));
  await symlink(ROOT, path.join(consumer, "node_modules", "agent-run"));
  await symlink(path.join(ROOT, "node_modules", "@types"), path.join(consumer, "node_modules", "@types"));
  await writeFile(path.join(consumer, "package.json"), JSON.stringify({ type: "module" }));
  await writeFile(
    path.join(consumer, "main.ts"),
    `import { Agent, createReadTool, type AgentToolResult, type StreamFunction } from "agent-run";
const stream: StreamFunction = async function* () {};
const agent: Agent = new Agent({ stream, model: { provider: "x", id: "y" }, tools: [createReadTool(".")] });
const result: AgentToolResult<{ n: number }> = { content: [], details: { n: 1 } };
// @ts-expect-error: the model must have an id
new Agent({ stream, model: { provider: "x" } });
console.log(typeof agent.prompt, result.details.n);
`,
  );
  await writeFile(
    path.join(consumer, "tsconfig.json"),
    JSON.stringify({
      compilerOptions: {
        module: "NodeNext",
        moduleResolution: "NodeNext",
        strict: true,
        noEmit: true,
        skipLibCheck: false,
        types: ["node"],
      },
      files: ["main.ts"],
    }),
  );
  execFileSync(path.join(bin, "tsc"), ["-p", "."], { cwd: consumer });
  const out = execFileSync(
    process.execPath,
    [
      "--input-type=module",
      "-e",
      "const m = await import('agent-run'); console.log(typeof m.Agent, typeof m.createBashTool, typeof m.runTask)",
    ],
    { cwd: consumer },
  );
  expect(out.toString().trim()).toBe("function function function");
}, 60_000);
