/**
 * agent-run beside other coding-agent runners, measured from outside (issue 18): the same
 * scripted sessions against the same mock LLM (OpenAI Responses wire format; zero latency unless
 * `--latency`), the runners alternated round by round. Not part of `npm run bench`: the other
 * runners are not dependencies of this repository, so their paths are given, and this script
 * never installs, fetches or updates anything.
 *
 *   node bench/e2e/peers.ts [--pi PI_CLI_JS] [--codex CODEX_BINARY] [--runs N]
 *     [--latency MS] [--frame-ms MS]
 *
 * `--pi`: `dist/cli.js` of `@mariozechner/pi-coding-agent` (run with this repository's Node 24);
 * `--codex`: the native `codex` binary inside `@openai/codex`'s platform package. Each run gets a
 * fresh workspace and a fresh home (HOME, PI_CODING_AGENT_DIR, CODEX_HOME) in the temp folder,
 * whose configuration points the runner at the mock on 127.0.0.1 only and turns off its update
 * checks and telemetry. Scenarios: S1 one text turn; S2 20 tool turns (read, edit, `echo ok`,
 * write in turn; Codex has one shell tool, so it does all four through `exec_command`); S4
 * `seq 1 3000000` through the runner's shell tool. Per turn = (S2 − S1) / 20, wall and CPU. S2 is
 * also split by the mock's clock: spawn to the first request, the first three tool turns (where
 * the first-use waits fall at zero latency: the snapshot, the sandbox session, the first
 * checkpoint), each of turns 5-20, and the last request to the exit.
 * agent-run runs as it does by default (`sandbox: auto`: bash in bubblewrap where it starts) and
 * with `sandbox: off`, as pi runs its bash.
 *
 * `--latency MS` makes the mock a model that thinks: each reply's first byte comes MS after its
 * request, and `--frame-ms MS` spaces the stream's frames (a tool call's arguments come in
 * several). Every runner waits the same, so the differences are still the runners'; what changes
 * is which of their own waits a model's time hides (a user's runs all have one).
 */
import { mkdir, mkdtemp, rm, writeFile } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { parseArgs } from "node:util";
import { type MockReply, type MockToolCall, startMockLlm } from "../../test/mock-llm/server.ts";
import { buildBundle } from "./bundle.ts";
import { type Measured, measure } from "./measure.ts";
import { markerFile } from "./sessions.ts";
import { type BenchRow, fmt, markdownTable, rowOf, spread } from "./stats.ts";

const { values } = parseArgs({
  options: {
    pi: { type: "string" },
    codex: { type: "string" },
    runs: { type: "string", default: "5" },
    latency: { type: "string", default: "0" },
    "frame-ms": { type: "string", default: "0" },
  },
});
const RUNS = Number(values.runs);
/** What every reply of the mock gets: the model's time to first byte and between frames. */
const THINKING: Pick<MockReply, "firstByteDelayMs" | "chunkDelayMs"> = {
  firstByteDelayMs: Number(values.latency),
  chunkDelayMs: Number(values["frame-ms"]),
};
const TURNS = 20;
const USAGE = { input: 1000, output: 20 };
const DONE: MockReply = { text: "Done.", usage: USAGE };
const PROMPT = "Do the benchmark task.";
const BARE_LOOP = path.join(import.meta.dirname, "bare-loop.ts");

/**
 * "agent-run, sandbox off": bash unsandboxed, as pi and the bare loop run it (agent-run's default,
 * `sandbox: auto`, runs it in bubblewrap here).
 */
type Runner = "agent-run" | "agent-run, sandbox off" | "bare loop" | "pi" | "codex";
type Scenario = "S1" | "S2" | "S4";

/** Codex's one shell tool: a command string, plain pipes, no login shell. */
const codexShell = (cmd: string): MockToolCall => ({
  name: "exec_command",
  arguments: { cmd, login: false, tty: false },
});

function cycleCall(runner: Runner, i: number): MockToolCall {
  const codex = runner === "codex";
  switch (i % 4) {
    case 0:
      return codex ? codexShell("cat main.txt") : { name: "read", arguments: { path: "main.txt" } };
    case 1:
      return codex
        ? codexShell(`sed -i 's/<<${i}>>/<<${i} done>>/' main.txt`)
        : {
            name: "edit",
            arguments: { path: "main.txt", edits: [{ oldText: `<<${i}>>`, newText: `<<${i} done>>` }] },
          };
    case 2:
      return codex ? codexShell("echo ok") : { name: "bash", arguments: { command: "echo ok" } };
    default:
      return codex
        ? codexShell(`mkdir -p out && echo 'written by turn ${i}' > out/w${i}.txt`)
        : { name: "write", arguments: { path: `out/w${i}.txt`, content: `written by turn ${i}\n` } };
  }
}

function script(runner: Runner, scenario: Scenario): (index: number) => MockReply {
  if (scenario === "S1") return () => DONE;
  if (scenario === "S4") {
    const call =
      runner === "codex"
        ? codexShell("seq 1 3000000")
        : { name: "bash", arguments: { command: "seq 1 3000000" } };
    return (i) => (i === 0 ? { toolCalls: [call], usage: USAGE } : DONE);
  }
  return (i) => (i < TURNS ? { toolCalls: [cycleCall(runner, i)], usage: USAGE } : DONE);
}

const expectedRequests: Record<Scenario, number> = { S1: 1, S2: TURNS + 1, S4: 2 };

/** A run, with when each model request reached the mock (`performance.now()`, like startedAt). */
type Run = Measured & { requestsAt: number[] };

async function runOnce(runner: Runner, scenario: Scenario, cli: string): Promise<Run> {
  const workspace = await mkdtemp(path.join(os.tmpdir(), "agent-run-peers-ws-"));
  const home = await mkdtemp(path.join(os.tmpdir(), "agent-run-peers-home-"));
  await writeFile(path.join(workspace, "main.txt"), markerFile(TURNS));
  const play = script(runner, scenario);
  const requestsAt: number[] = [];
  const mock = await startMockLlm({
    script: (i) => {
      requestsAt.push(performance.now());
      return { ...play(i), ...THINKING };
    },
    recordBodies: false,
  });
  const base = {
    PATH: process.env.PATH,
    HOME: home,
    TMPDIR: os.tmpdir(),
    NO_COLOR: "1",
    OPENAI_API_KEY: "sk-bench",
  };
  const node = process.execPath;
  let command: string;
  let args: string[];
  let env: NodeJS.ProcessEnv = base;
  try {
    if (runner === "agent-run" || runner === "agent-run, sandbox off") {
      const sandbox = runner === "agent-run" ? "" : "sandbox: off\n";
      const task = `name: bench\nmodel: openai:gpt-5.4-mini\nprompt: ${PROMPT}\ntools: [read, edit, write, bash]\nlimits: { max_turns: 1000 }\n${sandbox}`;
      await writeFile(path.join(workspace, "task.yml"), task);
      [command, args] = [node, [cli, path.join(workspace, "task.yml")]];
      env = { ...base, OPENAI_BASE_URL: `${mock.url}/v1` };
    } else if (runner === "bare loop") {
      [command, args] = [node, [BARE_LOOP, "openai", mock.url, workspace]];
    } else if (runner === "pi") {
      const agentDir = path.join(home, "pi-agent");
      await mkdir(agentDir);
      const provider = {
        baseUrl: `${mock.url}/v1`,
        api: "openai-responses",
        apiKey: "sk-bench",
        models: [{ id: "gpt-5.4-mini" }],
      };
      await writeFile(path.join(agentDir, "models.json"), JSON.stringify({ providers: { mock: provider } }));
      command = node;
      args = [values.pi as string, "-p", "--provider", "mock", "--model", "gpt-5.4-mini", "--no-session"];
      args.push(
        "--no-extensions",
        "--no-skills",
        "--no-prompt-templates",
        "--no-themes",
        "--no-context-files",
      );
      args.push("--offline", "--tools", "read,bash,edit,write", PROMPT);
      env = {
        ...base,
        PI_CODING_AGENT_DIR: agentDir,
        PI_OFFLINE: "1",
        PI_TELEMETRY: "0",
        PI_SKIP_VERSION_CHECK: "1",
      };
    } else {
      const codexHome = path.join(home, "codex");
      await mkdir(codexHome);
      const config = [
        'model = "gpt-5.4-mini"',
        'model_provider = "mock"',
        "check_for_update_on_startup = false",
        "[model_providers.mock]",
        'name = "mock"',
        `base_url = "${mock.url}/v1"`,
        'wire_api = "responses"',
        'env_key = "OPENAI_API_KEY"',
        "request_max_retries = 0",
        "stream_max_retries = 0",
        "[analytics]",
        "enabled = false",
        "[otel]",
        'exporter = "none"',
        "",
      ];
      await writeFile(path.join(codexHome, "config.toml"), config.join("\n"));
      command = values.codex as string;
      args = ["exec", "--skip-git-repo-check", "--sandbox", "workspace-write", PROMPT];
      env = { ...base, CODEX_HOME: codexHome };
    }
    const result = await measure(command, args, { cwd: workspace, env });
    if (result.code !== 0 || requestsAt.length !== expectedRequests[scenario]) {
      throw new Error(
        `${runner} ${scenario}: exit ${result.code}, ${requestsAt.length} requests (expected ${expectedRequests[scenario]})\n${result.stderr.slice(-2000)}`,
      );
    }
    return { ...result, requestsAt };
  } finally {
    await mock.close();
    await rm(workspace, { recursive: true, force: true });
    await rm(home, { recursive: true, force: true });
  }
}

const bundle = await buildBundle();
const runners: Runner[] = ["agent-run", "agent-run, sandbox off", "bare loop"];
if (values.pi) runners.push("pi");
if (values.codex) runners.push("codex");
const got = new Map<string, { wall: number[]; cpu: number[]; rss: number[] }>();
const series = (key: string) => {
  const found = got.get(key);
  if (found) return found;
  const fresh = { wall: [] as number[], cpu: [] as number[], rss: [] as number[] };
  got.set(key, fresh);
  return fresh;
};
for (let round = 0; round < RUNS; round++) {
  for (const runner of runners) {
    const one = await runOnce(runner, "S1", bundle.cli);
    const two = await runOnce(runner, "S2", bundle.cli);
    const four = await runOnce(runner, "S4", bundle.cli);
    for (const [scenario, r] of [
      ["S1", one],
      ["S2", two],
      ["S4", four],
    ] as const) {
      const s = series(`${runner}\0${scenario}`);
      s.wall.push(r.wallMs);
      if (r.cpuMs !== undefined) s.cpu.push(r.cpuMs);
      if (r.peakRssKb !== undefined) s.rss.push(r.peakRssKb / 1024);
    }
    const at = two.requestsAt;
    series(`${runner}\0S2 start`).wall.push(at[0]! - two.startedAt);
    series(`${runner}\0S2 first three`).wall.push(at[3]! - at[0]!);
    series(`${runner}\0S2 steady`).wall.push((at[TURNS]! - at[4]!) / (TURNS - 4));
    series(`${runner}\0S2 end`).wall.push(two.exitedAt - at[TURNS]!);
    const turn = series(`${runner}\0turn`);
    turn.wall.push((two.wallMs - one.wallMs) / TURNS);
    if (two.cpuMs !== undefined && one.cpuMs !== undefined) turn.cpu.push((two.cpuMs - one.cpuMs) / TURNS);
  }
  console.error(`round ${round + 1} of ${RUNS} done`);
}
await rm(bundle.dir, { recursive: true, force: true });

const rows: BenchRow[] = [];
for (const runner of runners) {
  for (const scenario of ["S1", "S4"] as const) {
    const s = series(`${runner}\0${scenario}`);
    rows.push(rowOf(runner, `${scenario} wall ms`, s.wall));
    if (s.cpu.length > 0) rows.push(rowOf(runner, `${scenario} CPU ms`, s.cpu));
    if (s.rss.length > 0) rows.push(rowOf(runner, `${scenario} peak RSS MB`, s.rss));
  }
  rows.push(rowOf(runner, "S2 start → first request ms", series(`${runner}\0S2 start`).wall));
  rows.push(rowOf(runner, "S2 first three tool turns ms", series(`${runner}\0S2 first three`).wall));
  rows.push(rowOf(runner, "S2 turns 5-20, each ms", series(`${runner}\0S2 steady`).wall, undefined, 2));
  rows.push(rowOf(runner, "S2 last request → exit ms", series(`${runner}\0S2 end`).wall));
  const turn = series(`${runner}\0turn`);
  rows.push(rowOf(runner, "per turn wall ms", turn.wall, undefined, 2));
  if (turn.cpu.length > 0) rows.push(rowOf(runner, "per turn CPU ms", turn.cpu, undefined, 2));
}
const peers = runners.filter((r) => r === "pi" || r === "codex");
if (peers.length > 0) {
  const median = (runner: Runner, key: string, what: "wall" | "cpu") =>
    spread(series(`${runner}\0${key}`)[what]).median;
  for (const scenario of ["S1", "S4"]) {
    for (const what of ["wall", "cpu"] as const) {
      const fastest = Math.min(...peers.map((p) => median(p, scenario, what)));
      const ratio = median("agent-run", scenario, what) / fastest;
      rows.push({
        scenario: "agent-run ÷ fastest peer",
        measure: `${scenario} ${what}`,
        value: fmt(ratio, 2),
        spread: peers.map((p) => `${p} ${fmt(median(p, scenario, what))}`).join(", "),
        target: `≤ 0.6 ${ratio <= 0.6 ? "met" : "MISSED"}`,
      });
    }
  }
  if (peers.includes("pi")) {
    for (const runner of ["agent-run", "agent-run, sandbox off"] as const) {
      for (const what of ["wall", "cpu"] as const) {
        const ours = median(runner, "turn", what);
        const pi = median("pi", "turn", what);
        rows.push({
          scenario: `${runner} vs pi`,
          measure: `per turn ${what} ms`,
          value: `${fmt(ours, 2)} vs ${fmt(pi, 2)}`,
          spread: "medians",
          target: `≤ pi ${ours <= pi ? "met" : "MISSED"}`,
        });
      }
    }
  }
}
const load = os
  .loadavg()
  .map((l) => l.toFixed(1))
  .join(" ");
const model = `model latency ${THINKING.firstByteDelayMs} ms, ${THINKING.chunkDelayMs} ms between frames`;
console.log(`Node ${process.version}; load average ${load}; ${RUNS} rounds; ${model}\n`);
console.log(markdownTable(rows));
