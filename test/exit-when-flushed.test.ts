/**
 * The entry points end with `exitWhenFlushed` once their work is done (src/system/exit-now.ts):
 * the process ends with the given code even though something still holds its event loop, and
 * nothing it wrote to stdout and stderr is lost, however slowly the reader reads. (On Linux a
 * pipe's writes are synchronous, so the output would be whole even without the drain wait, which
 * is for platforms where they are not; the live timer is what a natural exit would wait on.)
 */
import { spawn } from "node:child_process";
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { afterAll, expect, test } from "vitest";
import { ROOT } from "./helpers/cli.ts";

const dirs: string[] = [];
afterAll(async () => {
  for (const dir of dirs.splice(0)) await rm(dir, { recursive: true, force: true });
});

test("ends with its code despite a live timer, after 4 MB of output a slow reader takes", {
  timeout: 30_000,
}, async () => {
  const dir = await mkdtemp(path.join(os.tmpdir(), "exit-now-test-"));
  dirs.push(dir);
  const script = path.join(dir, "entry.ts");
  await writeFile(
    script,
    [
      `import { exitWhenFlushed } from ${JSON.stringify(path.join(ROOT, "src/system/exit-now.ts"))};`,
      "setInterval(() => {}, 1000);",
      `const line = "x".repeat(1023) + "\\n";`,
      "for (let i = 0; i < 4096; i++) process.stdout.write(line);",
      `process.stderr.write("last words\\n");`,
      "await exitWhenFlushed(3);",
    ].join("\n"),
  );
  const child = spawn(process.execPath, [script], { stdio: ["ignore", "pipe", "pipe"] });
  let stderr = "";
  child.stderr.on("data", (chunk: Buffer) => {
    stderr += chunk.toString();
  });
  // A reader that starts late and reads in small bites.
  child.stdout.pause();
  await new Promise((resolve) => setTimeout(resolve, 500));
  let bytes = 0;
  child.stdout.on("data", (chunk: Buffer) => {
    bytes += chunk.length;
  });
  child.stdout.resume();
  const code = await new Promise<number | null>((resolve) => child.on("close", resolve));
  expect(code).toBe(3);
  expect(bytes).toBe(4096 * 1024);
  expect(stderr).toBe("last words\n");
});
