import { mkdtemp, open, readFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, test } from "vitest";
import { runProcess } from "../src/system/process.ts";
import { isRunning } from "./tools-support.ts";

async function waitUntil(check: () => boolean, timeoutMs: number): Promise<boolean> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (check()) return true;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  return check();
}

async function grandchildPid(dir: string): Promise<number> {
  const file = join(dir, "pid");
  for (let i = 0; i < 100; i++) {
    const text = await readFile(file, "utf8").catch(() => "");
    if (text.trim()) return Number(text.trim());
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  throw new Error("grandchild did not write its pid");
}

describe("runProcess", () => {
  test("reports exit code, stdout and stderr without rejecting", async () => {
    const chunks: string[] = [];
    const result = await runProcess("bash", ["-c", "echo out; echo err >&2; exit 3"], {
      cwd: tmpdir(),
      onOutput: (chunk) => chunks.push(chunk),
    });
    expect(result.exitCode).toBe(3);
    expect(result.failed).toBe(true);
    expect(result.stdout).toBe("out\n");
    expect(result.stderr).toBe("err\n");
    expect(chunks.join("")).toContain("out\n");
    expect(chunks.join("")).toContain("err\n");
    expect(result.shortMessage).toContain("exit code 3");
  });

  test("a missing executable is a failed result, not a rejection", async () => {
    const result = await runProcess("agent-run-no-such-binary", [], { cwd: tmpdir() });
    expect(result.failed).toBe(true);
    expect(result.exitCode).toBeUndefined();
    expect(result.shortMessage).toContain("ENOENT");
    expect(result.cause).toBeInstanceOf(Error);
  });

  test("timeout kills the whole process group, grandchildren included", async () => {
    const dir = await mkdtemp(join(tmpdir(), "agent-run-proc-"));
    const started = Date.now();
    const run = runProcess("bash", ["-c", `sleep 100 & echo $! > ${dir}/pid; wait`], {
      cwd: dir,
      timeoutMs: 1000,
    });
    const sleeper = await grandchildPid(dir);
    const result = await run;
    expect(result.timedOut).toBe(true);
    expect(result.failed).toBe(true);
    expect(Date.now() - started).toBeLessThan(15_000);
    expect(await waitUntil(() => !isRunning(sleeper), 5000)).toBe(true);
  });

  test("abort kills the group, SIGKILL after the grace when SIGTERM is ignored", async () => {
    const dir = await mkdtemp(join(tmpdir(), "agent-run-proc-"));
    const controller = new AbortController();
    const run = runProcess("bash", ["-c", `trap '' TERM; sleep 100 & echo $! > ${dir}/pid; wait`], {
      cwd: dir,
      signal: controller.signal,
      killGraceMs: 300,
    });
    const sleeper = await grandchildPid(dir);
    controller.abort();
    const result = await run;
    expect(result.canceled).toBe(true);
    expect(result.exitCode).toBeUndefined();
    expect(await waitUntil(() => !isRunning(sleeper), 5000)).toBe(true);
  });

  test("background processes left behind are killed when the child exits", async () => {
    const dir = await mkdtemp(join(tmpdir(), "agent-run-proc-"));
    const started = Date.now();
    const result = await runProcess("bash", ["-c", `sleep 100 & echo $! > ${dir}/pid; echo done`], {
      cwd: dir,
    });
    expect(result.stdout).toBe("done\n");
    expect(Date.now() - started).toBeLessThan(15_000);
    const sleeper = Number((await readFile(join(dir, "pid"), "utf8")).trim());
    expect(await waitUntil(() => !isRunning(sleeper), 5000)).toBe(true);
  });

  test("captured output is bounded: head and tail kept, the middle counted", async () => {
    const result = await runProcess("seq", ["1", "200000"], { cwd: tmpdir(), maxBuffer: 1000 });
    expect(result.exitCode).toBe(0);
    expect(result.stdout.startsWith("1\n2\n3\n")).toBe(true);
    expect(result.stdout.endsWith("199999\n200000\n")).toBe(true);
    expect(result.stdoutDroppedBytes).toBeGreaterThan(1_000_000);
    expect(result.stdout).toContain(`[... ${result.stdoutDroppedBytes} bytes elided ...]`);
    expect(result.stdout.length).toBeLessThan(1100);
  });

  test("outputFile: stdout and stderr are that descriptor, in the order written; nothing is captured", async () => {
    const dir = await mkdtemp(join(tmpdir(), "agent-run-proc-"));
    const handle = await open(join(dir, "out.log"), "w");
    const chunks: string[] = [];
    try {
      const result = await runProcess(
        "bash",
        ["-c", "for i in 1 2 3; do echo out$i; echo err$i >&2; done; readlink /proc/$$/fd/1; exit 5"],
        { cwd: dir, outputFile: { fd: handle.fd }, onOutput: (chunk) => chunks.push(chunk) },
      );
      expect(result.exitCode).toBe(5);
      expect(result.failed).toBe(true);
      expect(result.stdout).toBe("");
      expect(result.stderr).toBe("");
      expect(chunks).toEqual([]);
    } finally {
      await handle.close();
    }
    expect(await readFile(join(dir, "out.log"), "utf8")).toBe(
      `out1\nerr1\nout2\nerr2\nout3\nerr3\n${join(dir, "out.log")}\n`,
    );
  });

  test("input goes to stdin; env can replace the parent's", async () => {
    const result = await runProcess("bash", ["-c", 'cat; echo "[$FOO][$HOME]"'], {
      cwd: tmpdir(),
      input: "hello\n",
      env: { FOO: "bar", PATH: process.env.PATH },
      extendEnv: false,
    });
    expect(result.stdout).toBe("hello\n[bar][]\n");
  });
});
