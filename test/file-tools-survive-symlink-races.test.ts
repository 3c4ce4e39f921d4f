/**
 * A process swaps workspace names between a real file or folder and a symlink that leads out (a
 * host folder, a canary file, /proc/self/environ) as fast as it can, while the model sends a few
 * hundred parallel read/write/edit/ls/grep calls in one turn. Sandboxed, the swapper is a `setsid`
 * loop left by the model's own bash (it lives until the run ends); unsandboxed, a host process.
 * Through the built CLI and the mock LLM: no byte may land outside the workspace, and no outside
 * content, file name or environment value may reach the model, the outputs or the terminal.
 */
import { type ChildProcess, spawn } from "node:child_process";
import { randomBytes } from "node:crypto";
import { mkdir, mkdtemp, readdir, readFile, rm, symlink, writeFile } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { type CliResult, runCli } from "./helpers/cli.ts";
import { NO_SANDBOX } from "./helpers/sandbox-available.ts";
import { SWAPPER } from "./helpers/swapper.ts";
import { trustWorkspace } from "./helpers/trust.ts";
import { type MockLlm, type MockToolCall, startMockLlm } from "./mock-llm/server.ts";

const tag = randomBytes(6).toString("hex");
const CANARY_CONTENT = `cnry-file-${tag}`;
const CANARY_NAME = `cnry-name-${tag}.txt`;
const CANARY_ENV = `cnry-env-${tag}`;
const CANARIES = [CANARY_CONTENT, CANARY_NAME, CANARY_ENV];
const b64 = (text: string) => Buffer.from(text).toString("base64");

const NAMES = ["w", "r", "e", "l", "g"];

/** The workspace's files and the links out, for an outside folder `outside`. */
async function raceWorkspace(outside: string, task: string): Promise<string> {
  const dir = await trustWorkspace(
    {
      "task.yml": task,
      r: "inside\n",
      e: "RACE_ENV_CANARY=placeholder\n",
      "l/inside.txt": "inside\n",
      "g/inside.txt": "RACE nothing here\n",
    },
    { git: true },
  );
  await mkdir(path.join(dir, "w"));
  await symlink(outside, path.join(dir, "w.link"));
  await symlink(path.join(outside, "data.txt"), path.join(dir, "r.link"));
  await symlink("/proc/self/environ", path.join(dir, "e.link"));
  await symlink(outside, path.join(dir, "l.link"));
  await symlink(outside, path.join(dir, "g.link"));
  return dir;
}

/** 300 calls, interleaved: writes into w/, reads of r, edits of e, ls of l, grep in g. */
function parallelCalls(): MockToolCall[] {
  const calls: MockToolCall[] = [];
  for (let i = 0; i < 60; i++) {
    calls.push({ name: "write", arguments: { path: `w/pwn-${i}.txt`, content: `pwned ${i}\n` } });
    calls.push({ name: "write", arguments: { path: `w/pwn-b${i}.txt`, content: `pwned b${i}\n` } });
    calls.push({ name: "read", arguments: { path: "r" } });
    calls.push({
      name: "edit",
      arguments: { path: "e", edits: [{ oldText: "RACE_ENV_CANARY=", newText: "RACE_ENV_CANARY=x" }] },
    });
    if (i % 2 === 0) calls.push({ name: "ls", arguments: { path: "l" } });
    else calls.push({ name: "grep", arguments: { pattern: "cnry|RACE", path: "g" } });
  }
  return calls.map((call, i) => ({ ...call, id: `race_${i}` }));
}

interface Race {
  dir: string;
  outside: string;
  mock: MockLlm;
  cli: CliResult;
}

async function runRace(task: string, firstTurn: MockToolCall[], host?: "host-swapper"): Promise<Race> {
  const outside = await mkdtemp(path.join(os.tmpdir(), "agent-run-race-outside-"));
  // The content is reached by a link (r), the name only by listing the folder (l, g).
  await writeFile(path.join(outside, "data.txt"), `${CANARY_CONTENT}\n`);
  await writeFile(path.join(outside, CANARY_NAME), `${CANARY_CONTENT}\n`);
  const dir = await raceWorkspace(outside, task);
  // The host swapper's run has a first turn too: one `write` of a file never swapped, which (like
  // every tool that may change a file) waits for the workspace snapshot the first model call does
  // not wait for (a `read` or an `ls` would not).
  const first = host
    ? [{ name: "write", arguments: { path: "warm-up.txt", content: "warm\n" }, id: "warm_up" }]
    : firstTurn;
  const script = [
    ...(first.length > 0 ? [{ toolCalls: first, usage: { input: 10, output: 5 } }] : []),
    { toolCalls: parallelCalls(), usage: { input: 10, output: 5 } },
    { text: "done", usage: { input: 10, output: 2 } },
  ];
  let swapper: ChildProcess | undefined;
  // The host swapper runs while the model's calls do: from the second request to the model (the
  // snapshot is taken: the first turn's tool has run) to the last (before the patch), so it races
  // the tools, not the runner's snapshot.
  const mock = await startMockLlm({
    script: (index) => {
      if (host && index === 1)
        swapper = spawn("perl", ["-e", SWAPPER, ...NAMES], { cwd: dir, stdio: "ignore" });
      if (index === script.length - 1) swapper?.kill("SIGKILL");
      return {
        ...(script[index] ?? script[script.length - 1]!),
        ...(host && index === 1 && { firstByteDelayMs: 300 }),
      };
    },
  });
  try {
    const cli = await runCli([path.join(dir, "task.yml")], {
      env: { RACE_ENV_CANARY: CANARY_ENV, ANTHROPIC_API_KEY: "test-key", ANTHROPIC_BASE_URL: mock.url },
    });
    return { dir, outside, mock, cli };
  } finally {
    swapper?.kill("SIGKILL");
  }
}

function expectSealed(race: () => Race): void {
  test("the run went through every call", () => {
    const { cli, mock } = race();
    expect(cli.stderr).not.toMatch(/internal error/);
    expect(mock.requests.length).toBeGreaterThanOrEqual(2);
    const results = JSON.stringify(mock.requests.at(-1)?.body);
    expect(results.match(/race_\d+/g)?.length ?? 0).toBeGreaterThanOrEqual(300);
  });

  test("the swapper was at work: some calls met the link out and were refused", () => {
    const results = JSON.stringify(race().mock.requests.at(-1)?.body);
    expect(results).toMatch(/leads outside the workspace/);
  });

  test("nothing was written outside the workspace", async () => {
    const { outside } = race();
    expect((await readdir(outside)).sort()).toEqual([CANARY_NAME, "data.txt"].sort());
    expect(await readFile(path.join(outside, "data.txt"), "utf8")).toBe(`${CANARY_CONTENT}\n`);
    expect(await readFile(path.join(outside, CANARY_NAME), "utf8")).toBe(`${CANARY_CONTENT}\n`);
  });

  test.for(CANARIES)("no form of %s reached the model", (canary) => {
    const bodies = race()
      .mock.requests.map((request) => JSON.stringify(request.body))
      .join("\n");
    for (const form of [canary, b64(canary), encodeURIComponent(canary)]) expect(bodies).not.toContain(form);
  });

  test.for(CANARIES)("no form of %s in the terminal or the output files", async (canary) => {
    const { dir, cli } = race();
    const out = path.join(dir, ".agent-run");
    const files = await Promise.all(
      ["patch.diff", "usage.json", "summary.md", "events.jsonl"].map((name) =>
        readFile(path.join(out, name), "utf8"),
      ),
    );
    const everything = [cli.stdout, cli.stderr, ...files].join("\n");
    for (const form of [canary, b64(canary)]) expect(everything).not.toContain(form);
  });
}

const races: Race[] = [];
afterAll(async () => {
  for (const race of races) {
    await race.mock.close();
    await rm(race.dir, { recursive: true, force: true });
    await rm(race.outside, { recursive: true, force: true });
  }
});

describe.skipIf(NO_SANDBOX)("sandboxed: a setsid swapper left by the model's bash (CLI, bubblewrap)", () => {
  let race: Race;
  beforeAll(async () => {
    const task =
      "model: anthropic:claude-sonnet-4-5\nprompt: race\ntools: [bash, read, write, edit, ls, grep]\nsandbox: required\n";
    const start = `setsid perl -e '${SWAPPER}' ${NAMES.join(" ")} </dev/null >/dev/null 2>&1 & sleep 0.3; echo started`;
    race = await runRace(task, [{ id: "swap", name: "bash", arguments: { command: start } }]);
    races.push(race);
  }, 120_000);
  expectSealed(() => race);
  test("the swapper ran inside the sandbox", () => {
    expect(JSON.stringify(race.mock.requests[1]?.body)).toContain("started");
  });
});

describe("unsandboxed: a host process swaps the names (CLI, sandbox: off, no bash)", () => {
  let race: Race;
  beforeAll(async () => {
    const task =
      "model: anthropic:claude-sonnet-4-5\nprompt: race\ntools: [read, write, edit, ls, grep]\nsandbox: off\n";
    race = await runRace(task, [], "host-swapper");
    races.push(race);
  }, 120_000);
  expectSealed(() => race);
});
