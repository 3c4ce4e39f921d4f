import { readFile } from "node:fs/promises";
import { join } from "node:path";
import { describe, expect, test } from "vitest";
import type { AgentToolResult } from "../src/core/types.ts";
import { type BashToolDetails, createBashTool } from "../src/tools/index.ts";
import { makeWorkspace, run, textOf } from "./tools-support.ts";

describe("bash output", () => {
  test("a long output keeps head and tail, counts the middle and saves the full output", async () => {
    const root = await makeWorkspace();
    const spillDir = join(root, "..", `${root.split("/").pop()}-spill`);
    const tool = createBashTool(root, { spillDir, maxLines: 100, maxBytes: 4096 });
    const result = await run(tool, { command: "seq 1 100000; echo FINAL-STATUS >&2" });
    const text = textOf(result);
    const { details } = result;
    expect(text.startsWith("1\n2\n3\n")).toBe(true);
    expect(text).toContain("100000\nFINAL-STATUS\n\n[Exit code: 0]");
    expect(Buffer.byteLength(text)).toBeLessThanOrEqual(4096 + 40);
    expect(details.totalLines).toBe(100001);
    expect(details.truncation?.kept).toBe("head+tail");
    expect(details.truncation?.truncated).toBe(true);
    const { droppedLines, droppedBytes, outputLines } = details.truncation!;
    expect(outputLines).toBe(100);
    expect(droppedLines).toBe(100001 - 100);
    expect(text).toContain(
      `[... ${droppedLines} lines (${droppedBytes} bytes) elided; kept the first 50 and last 50 of 100001 lines; full output: ${details.fullOutputPath} ...]`,
    );
    const full = await readFile(details.fullOutputPath!, "utf8");
    expect(full.length).toBe(details.totalBytes);
    expect(full.startsWith("1\n2\n")).toBe(true);
    expect(full.endsWith("99999\n100000\nFINAL-STATUS\n")).toBe(true);
  });

  test("a single huge line is cut at both ends too", async () => {
    const root = await makeWorkspace();
    const tool = createBashTool(root, { spillDir: root, maxBytes: 2048 });
    const result = await run(tool, { command: "head -c 500000 /dev/zero | tr '\\0' x; echo" });
    expect(Buffer.byteLength(textOf(result))).toBeLessThan(2048 + 40);
    expect(result.details.truncation?.truncatedBy).toBe("bytes");
    expect(result.details.truncation?.lineCut).toBe(true);
  });

  test("short output is untouched: no truncation, no file", async () => {
    const root = await makeWorkspace();
    const result = await run(createBashTool(root), { command: "printf 'a\\nb\\n'; exit 4" });
    expect(textOf(result)).toBe("a\nb\n\n[Exit code: 4]");
    expect(result.details.exitCode).toBe(4);
    expect(result.details.truncation).toBeUndefined();
    expect(result.details.fullOutputPath).toBeUndefined();
  });

  test("output streams through onUpdate before the command ends", async () => {
    const root = await makeWorkspace();
    const updates: AgentToolResult<BashToolDetails>[] = [];
    let finished = false;
    const result = run(
      createBashTool(root),
      { command: "echo first; sleep 1.5; echo second" },
      {
        onUpdate: (partial) => {
          if (!finished) updates.push(partial);
        },
      },
    );
    const done = await result;
    finished = true;
    expect(updates.length).toBeGreaterThan(0);
    expect(textOf(updates[0]!)).toBe("first\n");
    expect(textOf(done)).toBe("first\nsecond\n\n[Exit code: 0]");
  });

  test("commandPrefix runs before the command; prepare may rewrite command, cwd and env", async () => {
    const root = await makeWorkspace({ "sub/marker.txt": "m" });
    const strict = createBashTool(root, { commandPrefix: "set -euo pipefail" });
    expect(textOf(await run(strict, { command: "false; echo unreachable" }))).toBe(
      "(no output)\n\n[Exit code: 1]",
    );
    const prepared = createBashTool(root, {
      env: { PATH: process.env.PATH },
      prepare: (execution) => ({
        command: `echo prepared; ${execution.command}`,
        cwd: join(execution.cwd, "sub"),
        env: { ...execution.env, EXTRA: "yes" },
      }),
    });
    expect(textOf(await run(prepared, { command: 'ls; echo "$EXTRA"' }))).toBe(
      "prepared\nmarker.txt\nyes\n\n[Exit code: 0]",
    );
  });

  test("a denied command is refused before anything runs", async () => {
    const root = await makeWorkspace();
    const tool = createBashTool(root, { allow: ["npm run lint*"], deny: ["rm *"] });
    await expect(run(tool, { command: "npm run lint; touch pwned" })).rejects.toThrow(
      "Command refused by the bash policy: `touch pwned` is not in the allow list (npm run lint*)",
    );
    await expect(run(tool, { command: "eval 'touch pwned'" })).rejects.toThrow("not in the allow list");
    await expect(readFile(join(root, "pwned"))).rejects.toThrow();
  });
});
