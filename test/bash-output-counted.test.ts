/**
 * A command's output file is read while the command runs, not only after: its lines are counted
 * as it grows (bash-output-file.ts `count`, driven by bash-capture.ts), so the final view reads
 * only what came last; and a file big enough to be kept is handed on (`onOutputKept`, the run's
 * look for secrets) as soon as the command ends, before that view is read.
 */
import { existsSync, ftruncateSync, statSync, writeSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, test } from "vitest";
import { createOutputFile } from "../src/tools/bash-output-file.ts";
import { createBashTool } from "../src/tools/index.ts";
import { makeWorkspace, run } from "./tools-support.ts";

const lines = (from: number, count: number) =>
  Array.from({ length: count }, (_, i) => `line ${from + i}\n`).join("");

async function outputFile() {
  const root = await makeWorkspace();
  return createOutputFile({ maxLines: 100, maxBytes: 4096, spillDir: root, spillName: "counted" });
}

describe("a running command's output lines are counted as it grows", () => {
  test("each count goes on from the last; the view then holds every line", async () => {
    const output = await outputFile();
    writeSync(output.fd, lines(0, 50_000));
    expect(await output.count()).toBe(true);
    expect(await output.count()).toBe(false);
    writeSync(output.fd, `${lines(50_000, 30_000)}no newline at the end`);
    expect(await output.count()).toBe(true);
    const view = await output.view();
    expect(view.totalLines).toBe(80_001);
    expect(view.totalBytes).toBe(statSync(output.path).size);
    expect(view.text.endsWith("no newline at the end")).toBe(true);
    await output.finish(false);
  });

  test("counts and views asked at once each count a byte once", async () => {
    const output = await outputFile();
    writeSync(output.fd, lines(0, 400_000));
    const [, , view] = await Promise.all([output.count(), output.count(), output.view(), output.count()]);
    expect(view.totalLines).toBe(400_000);
    expect((await output.view()).totalLines).toBe(400_000);
    await output.finish(false);
  });

  test("an output the command cut back is counted again from its start", async () => {
    const output = await outputFile();
    writeSync(output.fd, lines(0, 10_000));
    await output.count();
    ftruncateSync(output.fd, 0);
    writeSync(output.fd, lines(0, 7));
    const view = await output.view();
    expect(view.totalLines).toBe(7);
    expect(view.text).toBe(lines(0, 7));
    await output.finish(false);
  });
});

describe("a kept output is handed on as soon as its command ends", () => {
  test("a big output: its file, complete, before the tool's result; a small one: never", async () => {
    const root = await makeWorkspace();
    const spillDir = join(root, "spill");
    const kept: { file: string; size: number; existed: boolean }[] = [];
    const tool = createBashTool(root, {
      spillDir,
      maxBytes: 4096,
      onOutputKept: (file) => kept.push({ file, size: statSync(file).size, existed: existsSync(file) }),
    });
    expect((await run(tool, { command: "seq 1 10" })).details.fullOutputPath).toBeUndefined();
    expect(kept).toEqual([]);
    const result = await run(tool, { command: "seq 1 200000" });
    const file = result.details.fullOutputPath;
    expect(file).toBeDefined();
    expect(kept).toEqual([{ file, size: result.details.totalBytes, existed: true }]);
    expect(statSync(file!).size).toBe(1_288_895);
  });

  test("an output cut by lines only is left to the tool's result", async () => {
    const root = await makeWorkspace();
    const kept: string[] = [];
    const tool = createBashTool(root, {
      spillDir: root,
      maxLines: 10,
      onOutputKept: (file) => kept.push(file),
    });
    const result = await run(tool, { command: "seq 1 100" });
    expect(result.details.fullOutputPath).toBeDefined();
    expect(kept).toEqual([]);
  });
});
