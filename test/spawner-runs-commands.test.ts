/**
 * The spawner (src/system/spawner.ts): the runner's git commands started by a small sh instead of
 * by forks of the runner. It must run each command exactly as a spawn would (arguments, folder,
 * environment, stdin), report how it ended, kill it on request, hand back to the caller when it
 * cannot say a command or has died, and leave nothing running when the runner ends.
 */
import { execFileSync, spawn } from "node:child_process";
import { mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { afterAll, expect, test } from "vitest";
import { type SpawnRequest, spawnThrough } from "../src/system/spawner.ts";
import { ROOT } from "./helpers/cli.ts";

const SH = execFileSync("sh", ["-c", "command -v sh"], { encoding: "utf8" }).trim();
const dirs: string[] = [];
afterAll(async () => {
  for (const dir of dirs.splice(0)) await rm(dir, { recursive: true, force: true });
});

async function tempDir(): Promise<string> {
  const dir = await mkdtemp(path.join(os.tmpdir(), "spawner-test-"));
  dirs.push(dir);
  return dir;
}

const baseEnv = (): Record<string, string> => ({ PATH: process.env.PATH ?? "/usr/bin:/bin" });

function request(script: string, options: Partial<SpawnRequest> = {}): SpawnRequest {
  return {
    file: SH,
    args: ["-c", script, "sh", ...(options.args ?? [])],
    cwd: options.cwd ?? os.tmpdir(),
    env: options.env ?? baseEnv(),
    maxBytes: options.maxBytes ?? 1024 * 1024,
    ...(options.input !== undefined && { input: options.input }),
  };
}

async function run(req: SpawnRequest) {
  const command = await spawnThrough(req);
  if (!command) throw new Error("the spawner did not take the command");
  return command.done;
}

test("arguments reach the command byte for byte, whatever sh would make of them", async () => {
  const words = ["it's", 'a "quoted" word', "$HOME `id` $(id)", "line one\nline two", "\\n * ?", ""];
  const result = await run(request('for a in "$@"; do printf "<%s>" "$a"; done', { args: words }));
  expect(result.exitCode).toBe(0);
  expect(result.stdout.toString()).toBe(words.map((word) => `<${word}>`).join(""));
});

test("the folder, stdin, stdout, stderr and exit status are the command's own", async () => {
  const dir = await tempDir();
  const result = await run(
    request('pwd; cat; echo "to stderr" >&2; exit 3', { cwd: dir, input: "from stdin\n" }),
  );
  expect(result).toMatchObject({ exitCode: 3, signal: undefined, tooLarge: false, lost: false });
  expect(result.stdout.toString()).toBe(`${dir}\nfrom stdin\n`);
  expect(result.stderr.toString()).toBe("to stderr\n");
});

test.for([
  ["the first", { A: "one", B: "two" }],
  ["a second, with a variable changed, one removed and one added", { A: "x y 'z'\n$B", C: "three" }],
  ["a third, with none of them", {}],
] as const)("each command gets exactly its environment: %s", async ([, vars]) => {
  const env = { ...baseEnv(), ...vars };
  const result = await run(request("env", { env }));
  const seen = Object.fromEntries(
    result.stdout
      .toString()
      .split(/\n(?=[A-Za-z_][A-Za-z0-9_]*=)/)
      .map((line) => line.replace(/\n$/, ""))
      .filter((line) => line !== "")
      .map((line) => [line.slice(0, line.indexOf("=")), line.slice(line.indexOf("=") + 1)]),
  );
  // sh keeps PWD current with its `cd`, as a spawn's child would find it.
  delete seen.PWD;
  delete seen.OLDPWD;
  expect(seen).toEqual(env);
});

test("a command is killed on request, before it has started or after", async () => {
  for (const early of [true, false]) {
    const command = await spawnThrough(request("echo started; exec sleep 30.25"));
    if (!command) throw new Error("the spawner did not take the command");
    if (!early) await new Promise((resolve) => setTimeout(resolve, 200));
    const started = performance.now();
    command.kill();
    const result = await command.done;
    expect(result).toMatchObject({ exitCode: undefined, signal: "SIGKILL", lost: false });
    expect(performance.now() - started).toBeLessThan(5000);
  }
  expect(execFileSync("sh", ["-c", "pgrep -f '^sleep 30[.]25$' || true"], { encoding: "utf8" })).toBe("");
});

test("output past maxBytes is not read", async () => {
  const result = await run(request("head -c 5000 /dev/zero", { maxBytes: 4096 }));
  expect(result).toMatchObject({ exitCode: 0, tooLarge: true });
  expect(result.stdout.length).toBe(0);
});

test("what it cannot say is left to the caller: a relative file, a variable sh cannot name", async () => {
  expect(await spawnThrough({ ...request("true"), file: "sh" })).toBeUndefined();
  expect(await spawnThrough(request("true", { env: { ...baseEnv(), "NOT-A-NAME": "1" } }))).toBeUndefined();
});

/**
 * A runner that uses the spawner, in a process of its own: prints the spawner's PID and starts a
 * long command through it, then waits to be killed (or, with "exit", ends by itself).
 */
async function runnerWithLongCommand(how: "exit" | "wait"): Promise<{ pid: number; spawner: number }> {
  const dir = await tempDir();
  const script = path.join(dir, "runner.ts");
  await writeFile(
    script,
    [
      `import { execFileSync } from "node:child_process";`,
      `import { spawnThrough } from ${JSON.stringify(path.join(ROOT, "src/system/spawner.ts"))};`,
      `const command = await spawnThrough({ file: ${JSON.stringify(SH)}, args: ["-c", "exec sleep 31.5"], cwd: "/", env: { PATH: process.env.PATH }, maxBytes: 1024 });`,
      `const spawner = execFileSync("pgrep", ["-P", String(process.pid), "-f", "agent-run-spawner"], { encoding: "utf8" }).trim();`,
      "console.log(spawner);",
      `await new Promise((resolve) => setTimeout(resolve, 300));`,
      how === "exit" ? "process.exit(0);" : "setInterval(() => {}, 1000); await command.done;",
    ].join("\n"),
  );
  const child = spawn(process.execPath, [script], { stdio: ["ignore", "pipe", "inherit"] });
  const spawner = await new Promise<number>((resolve) => {
    child.stdout.once("data", (chunk: Buffer) => resolve(Number(chunk.toString().trim())));
  });
  return { pid: child.pid ?? 0, spawner };
}

async function gone(pattern: string): Promise<boolean> {
  for (let tries = 0; tries < 50; tries++) {
    const left = execFileSync("sh", ["-c", `pgrep -f '${pattern}' || true`], { encoding: "utf8" });
    if (left === "") return true;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  return false;
}

test.for(["exit", "wait"] as const)(
  "nothing it started outlives the runner (runner ends by: %s)",
  { timeout: 30_000 },
  async (how) => {
    const { pid, spawner } = await runnerWithLongCommand(how);
    expect(spawner).toBeGreaterThan(0);
    if (how === "wait") {
      await new Promise((resolve) => setTimeout(resolve, 500));
      process.kill(pid, "SIGKILL");
    }
    expect(await gone("^sleep 31[.]5$")).toBe(true);
    // Gone, or a zombie waiting for an init that reaps slowly (this machine's PID 1 is no init).
    const status = await readFile(`/proc/${spawner}/status`, "utf8").catch(() => "State:\tgone");
    expect(/^State:\s+(\S+)/m.exec(status)?.[1]).toMatch(/^(gone|Z)$/);
  },
);

test("when the spawner dies, its commands come back lost and later ones go to the caller", async () => {
  const command = await spawnThrough(request("exec sleep 32.5"));
  if (!command) throw new Error("the spawner did not take the command");
  const spawner = execFileSync("pgrep", ["-P", String(process.pid), "-f", "agent-run-spawner"], {
    encoding: "utf8",
  }).trim();
  process.kill(-Number(spawner), "SIGKILL");
  expect(await command.done).toMatchObject({ lost: true, exitCode: undefined });
  expect(await spawnThrough(request("true"))).toBeUndefined();
});
