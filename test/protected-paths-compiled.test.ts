import path from "node:path";
import { describe, expect, test, vi } from "vitest";
import { protectedPathsOfRun } from "../src/run/build-tools.ts";
import { runTask } from "../src/run/index.ts";
import { parseTask } from "../src/spec/index.ts";
import { compileProtectedPaths, createProtectedPathCheck } from "../src/tools/protected-paths.ts";
import { tempWorkspace } from "./helpers/cli.ts";
import { startMockLlm } from "./mock-llm/server.ts";

// Every glob picomatch is asked to compile, in order.
const compiledGlobs = vi.hoisted((): string[] => []);
vi.mock("picomatch", async (importOriginal) => {
  const real = ((await importOriginal()) as { default: (glob: string, options?: object) => unknown }).default;
  const counting = Object.assign((glob: string, options?: object) => {
    compiledGlobs.push(glob);
    return real(glob, options);
  }, real);
  return { default: counting };
});

const spec = (tools: string) =>
  parseTask(
    `name: t\nmodel: openai:gpt-5.4-mini\nprompt: p\nprotect: [secrets/**]\ntools:\n${tools}`,
    "/ws/task.yml",
  );

describe("the protected globs of a run", () => {
  test("are compiled once for the process: the edit and write tools' checks and each judged command share them", () => {
    const globs = ["once-a/**", "once-b", "**/once-c"];
    compileProtectedPaths(globs);
    expect(compiledGlobs.filter((glob) => glob.startsWith("once-") || glob.includes("/once-"))).toEqual(
      globs,
    );
    const before = compiledGlobs.length;
    const edit = createProtectedPathCheck(globs);
    const write = createProtectedPathCheck([...globs].reverse());
    expect(edit({ relative: "once-a/x", realRelative: "once-a/x" })).toBe("once-a/**");
    expect(write({ relative: "src/x", realRelative: "deep/once-c" })).toBe("**/once-c");
    expect(edit({ relative: "src/x", realRelative: "src/x" })).toBeUndefined();
    expect(compiledGlobs.length).toBe(before);
  });

  test("a check compiles what was not compiled ahead, once", () => {
    const check = createProtectedPathCheck(["late/**"]);
    const before = compiledGlobs.length;
    expect(check({ relative: "late", realRelative: "late" })).toBe("late/**");
    expect(createProtectedPathCheck(["late/**"])({ relative: "x", realRelative: "x" })).toBeUndefined();
    expect(compiledGlobs.slice(before)).toEqual(["late/**"]);
  });

  test("are edit's and write's (with their own protect) and bash's only when its policy judges commands", () => {
    const plain = protectedPathsOfRun(
      spec(`  - read\n  - bash\n  - edit: { protect: ["**/*.lock"] }\n  - write\n`),
      "/ws",
      "/ws/.agent-run",
    );
    expect(plain).toEqual(
      expect.arrayContaining([
        ".git/**",
        ".github/workflows/**",
        "task.yml",
        ".agent-run/**",
        "secrets/**",
        "**/*.lock",
      ]),
    );
    // Each glob once, its case-insensitive form beside it.
    expect(new Set(plain).size).toBe(plain.length);
    expect(plain).toContain("[sS][eE][cC][rR][eE][tT][sS]/**");

    expect(protectedPathsOfRun(spec(`  - read\n  - bash\n`), "/ws", "/ws/.agent-run")).toEqual([]);
    const judged = protectedPathsOfRun(spec(`  - bash: { deny: ["git push*"] }\n`), "/ws", "/ws/.agent-run");
    expect(judged).toEqual(expect.arrayContaining(["secrets/**", ".git/**"]));
    expect(judged).not.toContain("**/*.lock");
  });
});

test("a run compiles them while the model streams its first tool call, so its first edit does not", async () => {
  const dir = await tempWorkspace({
    "task.yml":
      "model: anthropic:claude-haiku-4-5\nprompt: p\ntools: [read, edit]\nprotect: [run-only/**]\nsandbox: off\n",
    "a.txt": "one\n",
  });
  const mock = await startMockLlm({
    script: [
      { toolCalls: [{ name: "read", arguments: { path: "a.txt" } }] },
      {
        toolCalls: [
          { name: "edit", arguments: { path: "a.txt", edits: [{ oldText: "one", newText: "two" }] } },
        ],
      },
      { text: "done" },
    ],
  });
  const compiledBeforeEdit: string[] = [];
  try {
    const result = await runTask({
      taskFile: path.join(dir, "task.yml"),
      env: { ...process.env, ANTHROPIC_API_KEY: "test-key", ANTHROPIC_BASE_URL: mock.url },
      onEvent: (event) => {
        if (event.type === "tool_execution_start" && event.toolName === "edit") {
          compiledBeforeEdit.push(...compiledGlobs);
        }
      },
    });
    expect(result.exitCode).toBe(0);
  } finally {
    await mock.close();
  }
  // The spec's own glob and its case-insensitive form: compiled by then, once each for the run.
  const own = ["run-only/**", "[rR][uU][nN]-[oO][nN][lL][yY]/**"];
  expect(compiledBeforeEdit).toEqual(expect.arrayContaining(own));
  expect(compiledGlobs.filter((glob) => own.includes(glob))).toEqual(own);
});
