import { execFile } from "node:child_process";
import { readdir, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import { describe, expect, test } from "vitest";
import { detectSandbox } from "../src/sandbox/detect.ts";
import { sandboxEnv } from "../src/sandbox/env-allowlist.ts";
import { prepareSandbox } from "../src/sandbox/prepare.ts";
import { countNewlines } from "../src/tools/bash-output-file.ts";
import { createBashTool } from "../src/tools/index.ts";
import { NO_SANDBOX } from "./helpers/sandbox-available.ts";
import { makeWorkspace, run, textOf } from "./tools-support.ts";

const bashSource = fileURLToPath(new URL("../src/tools/bash.ts", import.meta.url));

describe("bash output is written by the child into a file, not read through a pipe", () => {
  test("stdout and stderr are one file in spillDir; deleted when the output was not cut", async () => {
    const root = await makeWorkspace();
    const spillDir = join(root, "spill");
    const tool = createBashTool(root, { spillDir });
    const result = await run(tool, {
      command: "readlink /proc/$$/fd/1 /proc/$$/fd/2; echo a; echo b >&2; echo c",
    });
    const [out, err, ...rest] = textOf(result).split("\n");
    expect(out).toMatch(new RegExp(`^${spillDir}/agent-run-bash-call-1-[^/]+\\.log$`));
    expect(err).toBe(out);
    expect(rest.join("\n")).toBe("a\nb\nc\n\n[Exit code: 0]");
    expect(result.details.fullOutputPath).toBeUndefined();
    expect(await readdir(spillDir)).toEqual([]);
  });

  test("a cut output keeps the file the child wrote as the full output", async () => {
    const root = await makeWorkspace();
    const tool = createBashTool(root, { spillDir: root, maxBytes: 4096 });
    const result = await run(tool, { command: "readlink /proc/$$/fd/1; seq 1 50000" });
    const path = result.details.fullOutputPath!;
    expect(textOf(result).startsWith(`${path}\n1\n2\n`)).toBe(true);
    expect(result.details.totalLines).toBe(50001);
  });

  test("the tool's process does not grow with the output (seq 1 3000000, 22.9 MB)", async () => {
    const root = await makeWorkspace();
    const script = join(root, "measure.mjs");
    await writeFile(
      script,
      `import { readFileSync } from "node:fs";
import { createBashTool } from ${JSON.stringify(bashSource)};
const hwm = () => Number(/VmHWM:\\s+(\\d+) kB/.exec(readFileSync("/proc/self/status", "utf8"))[1]) / 1024;
const tool = createBashTool(process.argv[2], { spillDir: process.argv[2] });
const signal = new AbortController().signal;
const context = { systemPrompt: "", messages: [], tools: [] };
await tool.execute("warm", { command: "seq 1 10" }, signal, () => {}, context);
const idle = hwm();
const result = await tool.execute("big", { command: "seq 1 3000000" }, signal, () => {}, context);
console.log(JSON.stringify({ idle, peak: hwm(), totalBytes: result.details.totalBytes }));
`,
    );
    const { stdout } = await promisify(execFile)(process.execPath, [script, root], { timeout: 60_000 });
    const measured = JSON.parse(stdout) as { idle: number; peak: number; totalBytes: number };
    expect(measured.totalBytes).toBe(22_888_896);
    // Read through pipes, the output left 23-39 MB of chunks behind (peak over idle); now ~2 MB.
    expect(measured.peak - measured.idle).toBeLessThan(15);
  }, 90_000);

  test("a command that reopens its own output leaves no hole of NUL bytes", async () => {
    const root = await makeWorkspace();
    const result = await run(createBashTool(root, { spillDir: root }), {
      command: "echo aaaaaaaaaaaa; echo b > /dev/stderr; echo c",
    });
    // Not root: the reopen is refused (the file is read-only) and all else is kept; root: it truncates.
    const expected = process.getuid?.() === 0 ? /^b\nc\n\n/ : /^aaaaaaaaaaaa\n.*Permission denied\nc\n\n/;
    expect(textOf(result)).not.toContain("\0");
    expect(textOf(result)).toMatch(expected);
  });

  test("when no file can be created in spillDir, the output comes through a pipe and says so", async () => {
    const root = await makeWorkspace({ "not-a-dir": "x" });
    const tool = createBashTool(root, { spillDir: join(root, "not-a-dir", "spill"), maxBytes: 2048 });
    const short = await run(tool, { command: "echo ok" });
    expect(textOf(short)).toBe("ok\n\n[Exit code: 0]");
    const long = await run(tool, { command: "seq 1 20000" });
    expect(textOf(long)).toContain("20000\n\n[the full output could not be saved: ENOTDIR");
    expect(long.details.fullOutputPath).toBeUndefined();
  });

  test.skipIf(NO_SANDBOX)(
    "a sandboxed command (bubblewrap) writes its output into the file too",
    async () => {
      const root = await makeWorkspace();
      const support = await detectSandbox();
      expect(support.available).toBe(true);
      const sandbox = await prepareSandbox({
        bwrapPath: support.bwrapPath,
        workspace: root,
        protectedGlobs: [],
        env: process.env,
      });
      try {
        const tool = createBashTool(root, {
          spillDir: join(root, "..", `${root.split("/").pop()}-spill`),
          maxBytes: 4096,
          prepare: (execution) => ({
            command: sandbox.wrapScript(execution.command, execution.cwd, execution.env),
            cwd: execution.cwd,
            env: sandboxEnv(execution.env, { home: sandbox.policy.home }),
          }),
        });
        const result = await run(tool, { command: "seq 1 100000; echo END >&2" });
        expect(textOf(result).startsWith("1\n2\n3\n")).toBe(true);
        expect(textOf(result)).toContain("99999\n100000\nEND\n\n[Exit code: 0]");
        expect(result.details.totalLines).toBe(100001);
        expect(result.details.fullOutputPath).toBeDefined();
      } finally {
        await sandbox.dispose();
      }
    },
  );
});

test("line feeds are counted at any offset and length, and only line feeds", () => {
  // Bytes one bit from a line feed (0x0b, 0x08, 0x8a, 0x2a), zero, and 0xff around real ones.
  const alphabet = [10, 10, 0x0b, 0x08, 0x8a, 0x2a, 0x00, 0xff, 0x61];
  const backing = new Uint8Array(64);
  let seed = 7;
  const random = () => {
    seed = (Math.imul(seed, 1103515245) + 12345) >>> 0;
    return seed / 2 ** 32;
  };
  for (let n = 0; n < 3000; n++) {
    for (let i = 0; i < backing.length; i++) backing[i] = alphabet[Math.floor(random() * alphabet.length)]!;
    const offset = Math.floor(random() * 8);
    const bytes = backing.subarray(offset, offset + Math.floor(random() * (backing.length - offset + 1)));
    const expected = bytes.reduce((count, byte) => count + (byte === 10 ? 1 : 0), 0);
    expect(countNewlines(bytes)).toBe(expected);
  }
});
