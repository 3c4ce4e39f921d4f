import { execFileSync } from "node:child_process";
import { mkdir, mkdtemp, realpath, rm, symlink, writeFile } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import picomatch from "picomatch";
import { afterEach, describe, expect, test } from "vitest";
import { protectedPaths } from "../src/run/build-tools.ts";
import { bubblewrapArgs, type SandboxPolicy } from "../src/sandbox/bubblewrap.ts";
import { detectSandbox } from "../src/sandbox/detect.ts";
import { findGitCredentials, scrubGitConfig } from "../src/sandbox/git-credentials.ts";
import { prepareSandbox } from "../src/sandbox/prepare.ts";
import type { LoadedTask } from "../src/spec/types.ts";
import { runProcess } from "../src/system/process.ts";
import { NO_SANDBOX } from "./helpers/sandbox-available.ts";
import { trustWorkspace } from "./helpers/trust.ts";

const policy = (over: Partial<SandboxPolicy> = {}): SandboxPolicy => ({
  bwrapPath: "/usr/bin/bwrap",
  workspace: "/home/u/ws",
  readOnly: ["/home/u/ws/.github/workflows", "/home/u/ws/.git"],
  masks: [{ target: "/home/u/ws/.git/config", source: "/tmp/s/gitconfig-0" }],
  hide: [],
  home: "/home/u",
  network: false,
  env: { PATH: "/usr/bin", HOME: "/home/u" },
  ...over,
});

/** Just enough of a loaded task for protectedPaths. */
const task = (hooks: string[] = []) =>
  ({
    file: "/ws/task.yml",
    dir: "/ws",
    name: "t",
    spec: {
      protect: [],
      hooks: {
        beforeToolCall: [],
        afterToolCall: [],
        prepareNextTurn: [],
        beforeStop: hooks.map((text, index) => ({
          index,
          run: { text, parts: [text] },
          maxAttempts: 1,
          timeoutMs: 1,
        })),
      },
    },
  }) as unknown as LoadedTask;

const dirs: string[] = [];
afterEach(async () => {
  for (const dir of dirs.splice(0)) await rm(dir, { recursive: true, force: true });
});

describe("the bubblewrap command line", () => {
  test("hides $HOME before binding the workspace back; pins parents of protected paths; masks last", () => {
    const args = bubblewrapArgs(policy(), ["bash", "-c", "x"], "/home/u/ws").join(" ");
    expect(args).toBe(
      [
        "--ro-bind / / --dev /dev --size 1073741824 --tmpfs /dev/shm --remount-ro /dev --proc /proc",
        "--size 1073741824 --tmpfs /tmp --size 1073741824 --tmpfs /home/u --tmpfs /run",
        "--bind /home/u/ws /home/u/ws",
        "--ro-bind /home/u/ws/.git /home/u/ws/.git",
        "--bind /home/u/ws/.github /home/u/ws/.github --ro-bind /home/u/ws/.github/workflows /home/u/ws/.github/workflows",
        "--ro-bind /tmp/s/gitconfig-0 /home/u/ws/.git/config",
        "--remount-ro /run",
        "--unshare-pid --unshare-ipc --unshare-uts --unshare-net --die-with-parent --new-session --cap-drop ALL --clearenv",
        "--setenv PATH /usr/bin --setenv HOME /home/u --chdir /home/u/ws -- bash -c x",
      ].join(" "),
    );
  });

  test("the writable tmpfs mounts get their sizes; a $HOME that is /tmp is one mount", () => {
    const sized = policy({ tmpfsBytes: { tmp: 1000, devShm: 2000, home: 3000 } });
    const args = bubblewrapArgs(sized, ["true"], "/home/u/ws").join(" ");
    expect(args).toContain("--size 2000 --tmpfs /dev/shm --remount-ro /dev");
    expect(args).toContain("--size 1000 --tmpfs /tmp --size 3000 --tmpfs /home/u --tmpfs /run");
    const shared = bubblewrapArgs({ ...sized, home: "/tmp" }, ["true"], "/home/u/ws").join(" ");
    expect(shared.match(/--tmpfs \/tmp/g)).toHaveLength(1);
    expect(shared).not.toContain("--size 3000");
  });

  test("sandbox_network keeps the host's network, not /run (Docker's socket is there)", () => {
    const args = bubblewrapArgs(policy({ network: true }), ["true"], "/home/u/ws");
    expect(args).not.toContain("--unshare-net");
    expect(args.join(" ")).toContain("--tmpfs /run");
    expect(args.join(" ")).toContain("--remount-ro /run");
  });

  test("a hidden folder inside the workspace is left alone; paths outside it are never bound writable", () => {
    const args = bubblewrapArgs(
      policy({ home: "/home/u/ws/home", readOnly: ["/etc/passwd", "/home/u/ws"] }),
      ["true"],
      "/home/u/ws",
    ).join(" ");
    expect(args).not.toContain("--tmpfs /home/u/ws/home");
    expect(args).not.toContain("/etc/passwd");
    expect(args.match(/--bind /g)).toHaveLength(1);
  });
});

describe("git credentials", () => {
  test("extraheader entries and URL passwords are removed; every form of them is reported", () => {
    const b64 = Buffer.from("x-access-token:ghs_abc123456").toString("base64");
    const config = [
      "[core]",
      "\tbare = false",
      '[http "https://github.com/"]',
      `\textraheader = AUTHORIZATION: basic ${b64}`,
      '[remote "origin"]',
      "\turl = https://x-access-token:ghs_url98765@github.com/o/r.git",
      "",
    ].join("\n");
    const { scrubbed, secrets } = scrubGitConfig(config);
    expect(scrubbed).not.toContain(b64);
    expect(scrubbed).not.toContain("ghs_url98765");
    expect(scrubbed).toContain("url = https://github.com/o/r.git");
    expect(scrubbed).toContain("bare = false");
    expect(secrets).toEqual(
      expect.arrayContaining([
        `AUTHORIZATION: basic ${b64}`,
        b64,
        "x-access-token:ghs_abc123456",
        "ghs_abc123456",
        "ghs_url98765",
      ]),
    );
  });

  test.skipIf(NO_SANDBOX)(
    "a workspace in a subfolder of the checkout: the checkout's config is found and masked inside the sandbox",
    async () => {
      const repo = await trustWorkspace(
        { "sub/a.txt": "a\n" },
        { extraheader: "AUTHORIZATION: basic c3ViZm9sZGVyLXRva2Vu" },
      );
      dirs.push(repo);
      const sub = path.join(repo, "sub");
      const found = await findGitCredentials(sub);
      expect(found.map((config) => config.file)).toContain(path.join(repo, ".git", "config"));
      expect(found.flatMap((config) => config.secrets)).toContain("c3ViZm9sZGVyLXRva2Vu");

      const support = await detectSandbox();
      expect(support.available).toBe(true);
      const sandbox = await prepareSandbox({
        bwrapPath: support.bwrapPath,
        workspace: sub,
        protectedGlobs: [],
        env: process.env,
      });
      try {
        expect(sandbox.gitSecrets).toContain("c3ViZm9sZGVyLXRva2Vu");
        const command = sandbox.wrapCommand({
          file: "bash",
          args: ["-c", "git config --get-regexp extraheader; cat ../.git/config"],
          cwd: sub,
          env: { PATH: process.env.PATH ?? "/usr/bin:/bin" },
        });
        const result = await runProcess(command.file, command.args, {
          cwd: sub,
          env: command.env,
          extendEnv: false,
        });
        expect(result.stdout).toContain("removed by agent-run's sandbox");
        expect(result.stdout).not.toContain("c3ViZm9sZGVyLXRva2Vu");
      } finally {
        await sandbox.dispose();
      }
    },
    30_000,
  );

  test.skipIf(NO_SANDBOX)(
    "a worktree (.git is a file): the common config is found and masked inside the sandbox",
    async () => {
      const main = await trustWorkspace(
        { "a.txt": "a\n" },
        { extraheader: "AUTHORIZATION: basic Y25yeS13b3JrdHJlZQ==" },
      );
      const tree = path.join(await mkdtemp(path.join(os.tmpdir(), "agent-run-wt-")), "wt");
      dirs.push(main, path.dirname(tree));
      execFileSync("git", ["worktree", "add", "-q", tree], { cwd: main });
      const found = await findGitCredentials(tree);
      expect(found.map((config) => config.file)).toContain(path.join(main, ".git", "config"));

      const support = await detectSandbox();
      expect(support.available).toBe(true);
      const sandbox = await prepareSandbox({
        bwrapPath: support.bwrapPath,
        workspace: tree,
        protectedGlobs: protectedPaths({ ...task(), file: "" }, tree, path.join(tree, ".agent-run")),
        env: process.env,
      });
      try {
        const command = sandbox.wrapCommand({
          file: "bash",
          args: ["-c", "git config --get-regexp extraheader; echo x > .git; echo rc=$?"],
          cwd: tree,
          env: { PATH: process.env.PATH ?? "/usr/bin:/bin" },
        });
        const result = await runProcess(command.file, command.args, {
          cwd: tree,
          env: command.env,
          extendEnv: false,
        });
        expect(result.stdout).not.toContain("Y25yeS13b3JrdHJlZQ==");
        expect(result.stdout).toContain("rc=1");
        expect(result.stderr).toContain("Read-only file system");
      } finally {
        await sandbox.dispose();
      }
    },
    30_000,
  );
});

describe("protected globs", () => {
  test("the script after an interpreter is protected when it exists; case variants match too", async () => {
    const ws = await trustWorkspace({ "ci/guard.sh": "exit 0\n", "lint.js": "" });
    dirs.push(ws);
    await writeFile(path.join(ws, "task.yml"), "");
    const globs = protectedPaths(
      {
        ...task(["bash ci/guard.sh --strict", "node lint.js", "npx eslint src/a.ts", "./missing.sh"]),
        file: path.join(ws, "task.yml"),
      },
      ws,
      path.join(ws, ".agent-run"),
    );
    expect(globs).toEqual(
      expect.arrayContaining(["ci/guard.sh", "lint.js", "missing.sh", "task.yml", ".agent-run/**"]),
    );
    expect(globs).not.toContain("src/a.ts");
    const match = picomatch(globs, { dot: true });
    for (const p of [
      ".GIT/hooks/x",
      ".Github/Workflows/a.yml",
      "sub/.git/config",
      "CI/Guard.sh",
      "Task.yml",
    ]) {
      expect(match(p)).toBe(true);
    }
    expect(match("src/a.ts")).toBe(false);
  });

  test("bubblewrap that cannot be found is reported with what to install", async () => {
    const support = await detectSandbox({ bwrapPath: "/nonexistent/bwrap-test" });
    expect(support).toMatchObject({ available: false });
    expect(support.reason).toContain("apt-get install -y bubblewrap");
  });
});

describe("programs on the PATH under a hidden folder", () => {
  test.skipIf(NO_SANDBOX)(
    "a project under /tmp keeps its node_modules/.bin programs inside the sandbox, read-only",
    async () => {
      const project = await mkdtemp(path.join(os.tmpdir(), "agent-run-proj-"));
      const workspace = await mkdtemp(path.join(os.tmpdir(), "agent-run-ws-"));
      dirs.push(project, workspace);
      const bin = path.join(project, "node_modules", ".bin");
      await mkdir(path.join(project, "node_modules", "hello"), { recursive: true });
      await mkdir(bin, { recursive: true });
      await writeFile(
        path.join(project, "node_modules", "hello", "run.sh"),
        "#!/bin/sh\necho hello from $0\n",
        {
          mode: 0o755,
        },
      );
      await symlink("../hello/run.sh", path.join(bin, "hello"));
      const PATH = `${bin}:/usr/bin:/bin`;

      const support = await detectSandbox();
      expect(support.available).toBe(true);
      const sandbox = await prepareSandbox({
        bwrapPath: support.bwrapPath,
        workspace,
        protectedGlobs: [],
        env: { ...process.env, PATH },
      });
      try {
        expect(sandbox.policy.reveal).toEqual([path.join(await realpath(project), "node_modules")]);
        const command = sandbox.wrapCommand({
          file: "bash",
          args: ["-c", 'hello; touch "$(dirname "$(command -v hello)")/x" 2>/dev/null || echo read-only'],
          cwd: workspace,
          env: { PATH },
        });
        const result = await runProcess(command.file, command.args, {
          cwd: workspace,
          env: command.env,
          extendEnv: false,
        });
        expect(result.stdout).toContain("hello from");
        expect(result.stdout).toContain("read-only");
        // The rest of /tmp stays hidden.
        const peek = sandbox.wrapCommand({
          file: "bash",
          args: ["-c", `ls ${project}`],
          cwd: workspace,
          env: { PATH },
        });
        const listing = await runProcess(peek.file, peek.args, {
          cwd: workspace,
          env: peek.env,
          extendEnv: false,
        });
        expect(listing.stdout.trim()).toBe("node_modules");
      } finally {
        await sandbox.dispose();
      }
    },
    30_000,
  );
});
