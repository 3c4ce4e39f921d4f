/**
 * Bad input fed to the built CLI, as a reliability engineer would: the bad-spec corpus
 * (fixtures/bad-specs, each with the exact text it must print) through `agent-run validate` and
 * through a run, then inputs that cannot live in a fixture folder (FIFOs, devices, sockets,
 * symbolic link loops, huge files, folders that cannot be written) and bad flags. Every one must
 * end with exit 2, its problem in one line (one per problem for specs) and no stack trace, before
 * anything is written, and soon (the bound here only catches hangs; speed is in `npm run bench`).
 */
import { spawnSync } from "node:child_process";
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { mkdir, mkdtemp, symlink, writeFile } from "node:fs/promises";
import net from "node:net";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { BUILT_CLI } from "./helpers/built.ts";
import { ROOT, runCli } from "./helpers/cli.ts";
import { SANDBOX_AVAILABLE } from "./helpers/sandbox-available.ts";

const CORPUS = path.join(import.meta.dirname, "fixtures", "bad-specs");
const cases = readdirSync(CORPUS)
  .filter((name) => name.endsWith(".yml"))
  .sort();
/**
 * A run reads the spec with the same loadTask as validate and prints the same lines: every class
 * of fault added with the input checks (100 and up) and every sixth older one go through a run
 * too, so the suite does not spawn 130 more processes to prove the same code path.
 */
const runCases = cases.filter((name, i) => Number.parseInt(name, 10) >= 100 || i % 6 === 0);
/**
 * Each file of the corpus is validated by the built CLI's own `main` (the bundle's chunk, as
 * bin/agent-run.js calls it), all in one process; every sixth file also through a process of its
 * own, where the wrapper's exit and streams are those users get. A process per file cost the
 * suite ~90 spawns of the CLI for the same code path.
 */
const ownProcessCases = cases.filter((_, i) => i % 6 === 0);

/**
 * `main(["validate", name])` of the built CLI's bundle for each of `names`, in one child process
 * with `cwd` and `env`: what each wrote to stdout and stderr, its exit code and time.
 */
function validateInOneProcess(
  names: readonly string[],
  cwd: string,
  env: NodeJS.ProcessEnv,
): Record<string, { code: number; stdout: string; stderr: string; ms: number }> {
  // The bundle's main, loaded as its entry loads it (src/system/core-loader.ts).
  const loader = path.join(ROOT, "src", "system", "core-loader.ts");
  const cliMain = path.join(path.dirname(BUILT_CLI), "core", "cli-main.cjs");
  const script = `
    const { loadCore } = await import(${JSON.stringify(loader)});
    const { main } = await loadCore(${JSON.stringify(cliMain)});
    const results = {};
    const out = process.stdout.write.bind(process.stdout);
    const err = process.stderr.write.bind(process.stderr);
    for (const name of JSON.parse(process.argv[1])) {
      const result = { stdout: "", stderr: "" };
      process.stdout.write = (text) => ((result.stdout += text), true);
      process.stderr.write = (text) => ((result.stderr += text), true);
      const started = Date.now();
      try {
        result.code = await main(["validate", name]);
      } catch (error) {
        result.code = -1;
        result.stderr += String(error?.stack ?? error);
      } finally {
        process.stdout.write = out;
        process.stderr.write = err;
      }
      result.ms = Date.now() - started;
      results[name] = result;
    }
    out(JSON.stringify(results));
  `;
  const child = spawnSync(process.execPath, ["--input-type=module", "-e", script, JSON.stringify(names)], {
    cwd,
    env: { ...process.env, ...env },
    encoding: "utf8",
    maxBuffer: 64 * 1024 * 1024,
    timeout: 120_000,
  });
  if (child.status !== 0) throw new Error(`the validating process failed (${child.status}): ${child.stderr}`);
  return JSON.parse(child.stdout);
}
/** Far above the real figures (~0.2 s a run here): a bound that only a hang or a crawl crosses. */
const HANG_MS = 10_000;
/** The same for the large files: a quadratic step takes minutes there (20,000 vars took 21 s). */
const CRAWL_MS = 30_000;
const ENV = { HOME: "/home/test" };
const STACK = /\n\s+at /;

let tmp: string;
let session: string;
let task: string;
beforeAll(async () => {
  tmp = await mkdtemp(path.join(os.tmpdir(), "agent-run-bad-input-"));
  session = path.join(tmp, "session.yml");
  await writeFile(session, "turns:\n  - text: done\n");
  task = path.join(tmp, "task.yml");
  await writeFile(task, "model: anthropic:claude-sonnet-4-5\nprompt: do it\nsandbox: off\n");
});

async function timed(args: string[], options: { cwd?: string; env?: NodeJS.ProcessEnv } = {}) {
  const started = Date.now();
  const result = await runCli(args, { env: ENV, ...options });
  return { ...result, ms: Date.now() - started };
}

describe.concurrent("the bad-spec corpus through the built CLI", () => {
  let validated: ReturnType<typeof validateInOneProcess>;
  beforeAll(() => {
    validated = validateInOneProcess(cases, CORPUS, ENV);
  });

  test.for(cases)("validate %s: exit 2 and its expected lines", async (name) => {
    const expected = readFileSync(path.join(CORPUS, name.replace(/\.yml$/, ".expected")), "utf8");
    const result = validated[name];
    expect(result).toMatchObject({ code: 2, stdout: "", stderr: expected });
    expect(result?.ms).toBeLessThan(HANG_MS);
  });

  test.for(ownProcessCases)("validate %s in a process of its own: the same", async (name) => {
    const expected = readFileSync(path.join(CORPUS, name.replace(/\.yml$/, ".expected")), "utf8");
    const result = await timed(["validate", name], { cwd: CORPUS });
    expect(result).toMatchObject({ code: 2, stdout: "", stderr: expected });
    expect(result.ms).toBeLessThan(HANG_MS);
  });

  test.for(runCases)("a run of %s: exit 2, the same lines, nothing written", async (name) => {
    const expected = readFileSync(path.join(CORPUS, name.replace(/\.yml$/, ".expected")), "utf8");
    const out = path.join(tmp, `out-${name}`);
    const result = await timed([name, "--replay", session, "--out", out], { cwd: CORPUS });
    expect(result).toMatchObject({ code: 2, stdout: "", stderr: expected });
    expect(result.ms).toBeLessThan(HANG_MS);
    expect(existsSync(out)).toBe(false);
  });
});

/** One line on stderr, exit 2, no stack, in time; `line` is what the line must hold. */
function expectOneLine(result: Awaited<ReturnType<typeof timed>>, line: string | RegExp): void {
  expect(result.code, result.stderr).toBe(2);
  expect(result.stderr).not.toMatch(STACK);
  const lines = result.stderr.trimEnd().split("\n");
  expect(
    lines.filter((l) => !l.startsWith("Run 'agent-run --help'")),
    result.stderr,
  ).toHaveLength(1);
  if (typeof line === "string") expect(lines[0]).toContain(line);
  else expect(lines[0]).toMatch(line);
  expect(result.ms).toBeLessThan(HANG_MS);
}

describe("task files that are not regular text files of a sane size", () => {
  let server: net.Server;
  const special = (name: string) => path.join(tmp, "special", name);
  beforeAll(async () => {
    await mkdir(path.join(tmp, "special", "a folder"), { recursive: true });
    spawnSync("mkfifo", [special("fifo.yml")]);
    await symlink("loop-b.yml", special("loop-a.yml"));
    await symlink("loop-a.yml", special("loop-b.yml"));
    await symlink("nowhere.yml", special("dangling.yml"));
    await writeFile(special("huge.yml"), Buffer.alloc(11 * 1024 * 1024, "#"));
    server = net.createServer();
    await new Promise<void>((resolve) => server.listen(special("socket.yml"), resolve));
  });
  afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

  test.for([
    ["fifo.yml", "fifo.yml: the task file is a FIFO (named pipe), not a regular file"],
    ["socket.yml", "socket.yml: the task file is a socket, not a regular file"],
    ["a folder", "a folder: the task file is a folder, not a regular file"],
    ["loop-a.yml", "loop-a.yml: the task file is a loop of symbolic links"],
    ["dangling.yml", "dangling.yml: task file not found"],
    ["huge.yml", "huge.yml: the task file is 11 MB; the limit is 10 MB"],
    ["/dev/zero", "/dev/zero: the task file is a device, not a regular file"],
    ["/dev/null", "/dev/null: the task file is a device, not a regular file"],
  ] as const)("%s: exit 2 at once, for validate and a run", async ([name, line]) => {
    const file = name.startsWith("/") ? name : special(name);
    for (const args of [
      ["validate", file],
      [file, "--replay", session],
    ]) {
      expectOneLine(await timed(args), line);
    }
  });

  test("a task file on a path with spaces and non-ASCII letters runs", async () => {
    const dir = path.join(tmp, "dossier avec espaces é", "ünïcode");
    await mkdir(dir, { recursive: true });
    await writeFile(
      path.join(dir, "tâche.yml"),
      "model: anthropic:claude-sonnet-4-5\nprompt: do it\nsandbox: off\n",
    );
    const result = await timed([path.join(dir, "tâche.yml"), "--replay", session]);
    expect(result.code, result.stderr).toBe(0);
    expect(existsSync(path.join(dir, ".agent-run", "usage.json"))).toBe(true);
  });
});

describe("large task files are read in linear time", { timeout: 60_000 }, () => {
  test("100,000 vars keys: valid, well within the bound", async () => {
    const lines = ["model: anthropic:claude-sonnet-4-5", "prompt: do {{ vars.k99999 }}", "vars:"];
    for (let i = 0; i < 100_000; i++) lines.push(`  k${i}: v${i}`);
    const file = path.join(tmp, "vars-100k.yml");
    await writeFile(file, `${lines.join("\n")}\n`);
    const result = await timed(["validate", file]);
    expect(result.code, result.stderr).toBe(0);
    expect(result.ms).toBeLessThan(CRAWL_MS);
  });

  test("20,000 undefined variables: the first 100 problems shown, the rest counted", async () => {
    const file = path.join(tmp, "undefined-20k.yml");
    const refs = Array.from({ length: 20_000 }, (_, i) => `{{ vars.u${i} }}`).join(" ");
    await writeFile(file, `model: anthropic:claude-sonnet-4-5\nprompt: "${refs}"\nvars: { a: x }\n`);
    const result = await timed(["validate", file]);
    expect(result.code).toBe(2);
    const lines = result.stderr.trimEnd().split("\n");
    expect(lines).toHaveLength(101);
    expect(lines[0]).toBe(
      `${file}:2:10 prompt: undefined variable 'vars.u0' (expected a variable defined under vars: or passed with --var u0=VALUE)`,
    );
    expect(lines[1]).toContain(`${file}:2:24 prompt: undefined variable 'vars.u1'`);
    expect(lines[100]).toBe(`${file}: 19,900 more problems not shown`);
    expect(result.ms).toBeLessThan(CRAWL_MS);
  });

  test("50,000 templates and 20,000 duplicate keys: linear too", async () => {
    const templates = path.join(tmp, "templates-50k.yml");
    const refs = "{{ vars.a }}".repeat(50_000);
    await writeFile(templates, `model: anthropic:claude-sonnet-4-5\nprompt: "${refs}"\nvars: { a: x }\n`);
    const valid = await timed(["validate", templates]);
    expect(valid.code, valid.stderr).toBe(0);
    expect(valid.ms).toBeLessThan(CRAWL_MS);

    const duplicates = path.join(tmp, "duplicates-20k.yml");
    const keys = Array.from({ length: 20_000 }, (_, i) => `  k${i % 10_000}: v\n`).join("");
    await writeFile(duplicates, `model: anthropic:claude-sonnet-4-5\nprompt: x\nvars:\n${keys}`);
    const result = await timed(["validate", duplicates]);
    expect(result.code).toBe(2);
    expect(result.stderr.split("\n")[0]).toBe(`${duplicates}:10004:3 duplicate key 'k0' (first at line 4)`);
    expect(result.ms).toBeLessThan(CRAWL_MS);
  });
});

describe("replay files that cannot be read", () => {
  test.for([
    ["a FIFO", "fifo", "is a FIFO (named pipe), not a regular file"],
    ["a folder", "folder", "is a folder, not a regular file"],
    ["a device", "/dev/zero", "is a device, not a regular file"],
    [
      "an alias bomb",
      "bomb.yml",
      /bomb\.yml:\d+:\d+: aliases expand the document by more than 100,000 values/,
    ],
    ["not UTF-8", "latin1.yml", /latin1\.yml:2:14: the replay file is not UTF-8 text \(byte 0xe9\)$/],
  ] as const)("--replay %s: exit 2, one line", async ([, name, line]) => {
    const dir = path.join(tmp, "replays");
    await mkdir(path.join(dir, "folder"), { recursive: true });
    if (!existsSync(path.join(dir, "fifo"))) spawnSync("mkfifo", [path.join(dir, "fifo")]);
    const bomb = ["turns:", "  - text: &a [x, x, x, x, x, x, x, x, x, x]"];
    for (let i = 1; i < 7; i++)
      bomb.push(
        `  - text: &${"a".repeat(i + 1)} [${Array(10)
          .fill(`*${"a".repeat(i)}`)
          .join(", ")}]`,
      );
    await writeFile(path.join(dir, "bomb.yml"), `${bomb.join("\n")}\n`);
    await writeFile(path.join(dir, "latin1.yml"), Buffer.from("turns:\n  - text: caf\xe9\n", "latin1"));
    const file = name.startsWith("/") ? name : path.join(dir, name);
    expectOneLine(await timed([task, "--replay", file]), line);
  });
});

describe("workspaces no task should own", () => {
  test.for([
    ["workdir: /", "workdir: /\n", [], "is the filesystem root"],
    ["workdir: /etc", "workdir: /etc\n", [], "is a system folder"],
    ["workdir: /usr/lib", "workdir: /usr/lib\n", [], "is a system folder"],
    ["workdir: /proc/self", "workdir: /proc/self\n", [], "is inside /proc"],
    ["--cwd /", "", ["--cwd", "/"], "is the filesystem root"],
    ["--cwd /tmp", "", ["--cwd", os.tmpdir()], "is a system folder"],
  ] as const)("%s: exit 2 before anything runs", async ([, body, flags, reason]) => {
    const file = path.join(tmp, `ws-${Math.random().toString(36).slice(2)}.yml`);
    await writeFile(file, `model: anthropic:claude-sonnet-4-5\nprompt: do it\nsandbox: off\n${body}`);
    const result = await timed([file, "--replay", session, "--out", path.join(tmp, "never"), ...flags]);
    expectOneLine(result, reason);
    expect(result.stderr).toMatch(/^agent-run: the workspace \S+ /);
    expect(existsSync(path.join(tmp, "never"))).toBe(false);
  });

  test("the home folder and a folder holding it are refused; a folder inside it runs", async () => {
    const home = path.join(tmp, "home", "me");
    await mkdir(path.join(home, "project"), { recursive: true });
    const env = { HOME: home };
    for (const [cwd, reason] of [
      [home, "is the home folder"],
      [path.dirname(home), `holds the home folder ${home}`],
    ] as const) {
      expectOneLine(await timed([task, "--replay", session, "--cwd", cwd], { env }), reason);
    }
    const ok = await timed([task, "--replay", session, "--cwd", path.join(home, "project")], { env });
    expect(ok.code, ok.stderr).toBe(0);
  });

  test("validate names the workdir line of a refused workspace", async () => {
    const file = path.join(tmp, "ws-validate.yml");
    await writeFile(file, "model: anthropic:claude-sonnet-4-5\nprompt: do it\nworkdir: /\n");
    const result = await timed(["validate", file]);
    expect(result.code).toBe(2);
    expect(result.stderr).toBe(
      `${file}:3:10 workdir: workspace / is the filesystem root (expected the project's folder (workdir: in the spec, or --cwd))\n`,
    );
  });
});

describe("outputs folders and record files that cannot take a file", () => {
  beforeAll(async () => {
    await writeFile(path.join(tmp, "a-file"), "x");
    await mkdir(path.join(tmp, "a-folder"), { recursive: true });
    if (!existsSync(path.join(tmp, "a-fifo"))) spawnSync("mkfifo", [path.join(tmp, "a-fifo")]);
  });

  test.for([
    ["--out under /proc", ["--out", "/proc/agent-run-out"], "is inside /proc"],
    ["--out under /sys", ["--out", "/sys/kernel/agent-run-out"], "is inside /sys"],
    ["--out a file", ["--out", "a-file"], "a-file is not a folder"],
    ["--out under a file", ["--out", "a-file/out"], "cannot be made"],
    ["--record under /proc", ["--record", "/proc/agent-run.yml"], "is inside /proc"],
    ["--record /proc/self/status", ["--record", "/proc/self/status"], "is inside /proc"],
    ["--record under /sys", ["--record", "/sys/agent-run.yml"], "is inside /sys"],
    ["--record /dev/null", ["--record", "/dev/null"], "is inside /dev"],
    ["--record a folder", ["--record", "a-folder"], "a-folder is a folder"],
    ["--record a FIFO", ["--record", "a-fifo"], "is not a regular file"],
    ["--record under a file", ["--record", "a-file/rec.yml"], "a part of the path is not a folder"],
  ] as const)("%s: exit 2, one line, nothing written", async ([, flags, line]) => {
    const out = path.join(tmp, `out-${Math.random().toString(36).slice(2)}`);
    const args = [task, "--replay", session, ...(flags[0] === "--out" ? [] : ["--out", out]), ...flags];
    const result = await timed(args, { cwd: tmp });
    expectOneLine(result, line);
    expect(existsSync(out)).toBe(false);
  });

  test("an events.jsonl that is a symbolic link (a checked-out repository's trap) is refused", async () => {
    const ws = await mkdtemp(path.join(tmp, "ws-"));
    await mkdir(path.join(ws, ".agent-run"));
    await writeFile(path.join(tmp, "victim"), "precious\n");
    await symlink(path.join(tmp, "victim"), path.join(ws, ".agent-run", "events.jsonl"));
    const result = await timed([task, "--replay", session, "--cwd", ws]);
    expectOneLine(
      result,
      `the output file ${path.join(ws, ".agent-run", "events.jsonl")} is a symbolic link`,
    );
    expect(readFileSync(path.join(tmp, "victim"), "utf8")).toBe("precious\n");
  });

  // Root writes through permission bits: only a read-only mount stops it, made here by bubblewrap.
  test.skipIf(!SANDBOX_AVAILABLE)("a read-only outputs folder or record folder: exit 2, not 4", async () => {
    const ro = await mkdtemp(path.join(tmp, "ro-"));
    for (const [flags, line] of [
      [["--out", path.join(ro, "out")], "cannot be made: the file system is read-only"],
      [["--out", ro], "cannot be written: the file system is read-only"],
      [["--record", path.join(ro, "rec.yml")], "cannot be written: the file system is read-only"],
    ] as const) {
      const started = Date.now();
      const child = spawnSync(
        "bwrap",
        [
          "--dev-bind",
          "/",
          "/",
          "--ro-bind",
          ro,
          ro,
          process.execPath,
          BUILT_CLI,
          task,
          "--replay",
          session,
          ...flags,
        ],
        { cwd: ROOT, encoding: "utf8", env: { ...process.env, NO_COLOR: "1" } },
      );
      expectOneLine(
        { code: child.status, stdout: child.stdout, stderr: child.stderr, ms: Date.now() - started },
        line,
      );
    }
  });
});

describe("bad flags", () => {
  test.for([
    [["--max-turns", "-1"], "--max-turns expects a positive whole number, got '-1'"],
    [["--max-turns", "1e400"], "--max-turns expects a positive whole number, got '1e400'"],
    [["--max-turns", "NaN"], "--max-turns expects a positive whole number, got 'NaN'"],
    [["--max-turns", "0x10"], "--max-turns expects a positive whole number, got '0x10'"],
    [["--max-cost", "Infinity"], "--max-cost expects a positive number, got 'Infinity'"],
    [["--max-cost", "-0.5"], "--max-cost expects a positive number, got '-0.5'"],
    [["--timeout", "0"], "--timeout expects a duration like 90s or 20m, got '0'"],
    [["--timeout", "-5s"], "--timeout expects a duration like 90s or 20m, got '-5s'"],
    [["--var", "x"], "--var expects K=V, got 'x'"],
    [["--var"], "--var needs a value: --var K=V"],
    [["--replay="], "--replay needs a value, got an empty one"],
    [["--cwd", ""], "--cwd needs a value, got an empty one"],
    [["--json=yes"], "--json takes no value, got 'yes'"],
    [["--max-turn", "3"], "unknown option '--max-turn' — did you mean '--max-turns'?"],
    [["-q"], "unknown option '-q'"],
    [["--model", "a:b", "--model", "c:d"], "--model is given twice ('a:b' and 'c:d'); give it once"],
  ] as const)("%j: exit 2, one line", async ([flags, line]) => {
    const result = await timed([task, ...flags]);
    expectOneLine(result, `agent-run: ${line}`);
    expect(result.stderr).toContain("Run 'agent-run --help' for usage.");
  });

  test("an empty prompt is a spec error on the flag", async () => {
    expectOneLine(await timed([task, "--replay", session, "--prompt", " "]), "--prompt: the prompt is empty");
  });
});
