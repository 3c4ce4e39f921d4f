import { spawn } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import { expect, test } from "vitest";
import { createEventsWriter } from "../src/output/events-writer.ts";
import { tempDir } from "./output-helpers.ts";

const writerModule = path.resolve("src/output/events-writer.ts");

test("every event written before a SIGKILL is on disk, one JSON object per line", async () => {
  const file = path.join(tempDir(), "out", "events.jsonl");
  const script = `
    import { writeSync } from "node:fs";
    import { createEventsWriter } from ${JSON.stringify(writerModule)};
    const events = createEventsWriter(${JSON.stringify(file)});
    for (let i = 0; i < 100; i++) events.write({ type: "tick", i });
    writeSync(1, "ready\\n");
    // Busy: an asynchronous (buffered) writer would never get to flush before the kill.
    for (;;) {}
  `;
  const child = spawn(process.execPath, ["--input-type=module", "-e", script], {
    stdio: ["ignore", "pipe", "inherit"],
  });
  await new Promise<void>((resolve) => child.stdout.once("data", () => resolve()));
  child.kill("SIGKILL");
  await new Promise((resolve) => child.once("exit", resolve));
  const lines = fs.readFileSync(file, "utf8").trimEnd().split("\n");
  expect(lines).toHaveLength(100);
  expect(lines.map((line) => JSON.parse(line).i)).toEqual(Array.from({ length: 100 }, (_, i) => i));
});

test("values JSON cannot hold do not lose the event; writes after close are dropped", async () => {
  const file = path.join(tempDir(), "events.jsonl");
  const events = createEventsWriter(file, { redact: (text) => text.replaceAll("hunter2", "***") });
  const cyclic: Record<string, unknown> = { type: "cyclic" };
  cyclic.self = cyclic;
  events.write(cyclic);
  events.write({ type: "big", n: 10n, error: new Error("boom hunter2"), shared: [{ a: 1 }, { a: 1 }] });
  await events.close();
  events.write({ type: "late" });
  await events.close();
  const lines = fs
    .readFileSync(file, "utf8")
    .trimEnd()
    .split("\n")
    .map((line) => JSON.parse(line));
  expect(lines[0]).toEqual({ type: "cyclic", self: "[Circular]" });
  expect(lines[1]).toMatchObject({ type: "big", n: "10", error: { name: "Error", message: "boom ***" } });
  expect(lines[1].shared).toEqual([{ a: 1 }, { a: 1 }]);
  expect(lines).toHaveLength(2);
});
