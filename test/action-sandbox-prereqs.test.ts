/**
 * On GitHub-hosted Linux runners the action installs bubblewrap and lifts Ubuntu 24.04's AppArmor
 * restriction when needed, and says why when it cannot; self-hosted machines are left alone.
 * The commands are recorded by injected operations (running sudo apt-get here is not an option).
 */
import { mkdtemp, writeFile } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { describe, expect, test } from "vitest";
import { type PrereqOps, prepareSandboxPrereqs, readSandboxMode } from "../src/action/sandbox-prereqs.ts";

function fakeOps(state: { bwrap: boolean; restricted?: string; fail?: RegExp }) {
  const calls: string[] = [];
  const ops: PrereqOps = {
    async exec(file, args) {
      const line = [file, ...args].join(" ");
      calls.push(line);
      if (state.fail?.test(line)) return { exitCode: 1, stderr: "sudo: a password is required" };
      if (line.includes("install")) state.bwrap = true;
      return { exitCode: 0, stderr: "" };
    },
    readText: async (file) =>
      file === "/proc/sys/kernel/apparmor_restrict_unprivileged_userns" ? state.restricted : undefined,
    onPath: async (name) => name === "bwrap" && state.bwrap,
  };
  return { ops, calls };
}

const hosted = { GITHUB_ACTIONS: "true", RUNNER_ENVIRONMENT: "github-hosted" };

describe("sandbox prerequisites in the action", () => {
  test("hosted, bwrap missing, AppArmor restricting: install, then lift the restriction", async () => {
    const { ops, calls } = fakeOps({ bwrap: false, restricted: "1\n" });
    const notes = await prepareSandboxPrereqs({
      env: hosted,
      platform: "linux",
      sandboxMode: undefined,
      ops,
    });
    expect(calls).toEqual([
      "sudo -n apt-get install -y --no-install-recommends bubblewrap",
      "sudo -n sysctl -w kernel.apparmor_restrict_unprivileged_userns=0",
    ]);
    expect(notes.map((n) => n.level)).toEqual(["info", "info"]);
  });

  test("a failed install retries after apt-get update; failures are warnings with the reason", async () => {
    const { ops, calls } = fakeOps({ bwrap: false, restricted: "1", fail: /sudo/ });
    const notes = await prepareSandboxPrereqs({ env: hosted, platform: "linux", sandboxMode: "auto", ops });
    expect(calls.slice(0, 3)).toEqual([
      "sudo -n apt-get install -y --no-install-recommends bubblewrap",
      "sudo -n apt-get update",
      "sudo -n apt-get install -y --no-install-recommends bubblewrap",
    ]);
    expect(notes).toEqual([
      { level: "warning", message: "could not install bubblewrap: sudo: a password is required" },
      {
        level: "warning",
        message:
          "could not set kernel.apparmor_restrict_unprivileged_userns=0 (sudo: a password is required); bubblewrap may not start",
      },
    ]);
  });

  test("self-hosted: nothing is changed, the log says what is needed", async () => {
    const { ops, calls } = fakeOps({ bwrap: false, restricted: "1" });
    const notes = await prepareSandboxPrereqs({
      env: { GITHUB_ACTIONS: "true", RUNNER_ENVIRONMENT: "self-hosted" },
      platform: "linux",
      sandboxMode: undefined,
      ops,
    });
    expect(calls).toEqual([]);
    expect(notes.map((n) => n.message)).toEqual([
      expect.stringContaining("bubblewrap is not installed and this is not a GitHub-hosted runner"),
      expect.stringContaining("AppArmor restricts unprivileged user namespaces"),
    ]);
  });

  test("nothing to do when bwrap is there and namespaces are free, on sandbox: off, or off Linux", async () => {
    const ready = fakeOps({ bwrap: true, restricted: "0" });
    expect(
      await prepareSandboxPrereqs({ env: hosted, platform: "linux", sandboxMode: "auto", ops: ready.ops }),
    ).toEqual([]);
    const off = fakeOps({ bwrap: false, restricted: "1" });
    expect(
      await prepareSandboxPrereqs({ env: hosted, platform: "linux", sandboxMode: "off", ops: off.ops }),
    ).toEqual([]);
    expect(
      await prepareSandboxPrereqs({ env: hosted, platform: "darwin", sandboxMode: "auto", ops: off.ops }),
    ).toEqual([]);
    expect(off.calls).toEqual([]);
    expect(ready.calls).toEqual([]);
  });

  test("the spec's sandbox mode is read from the task file", async () => {
    const dir = await mkdtemp(path.join(os.tmpdir(), "agent-run-prereqs-"));
    await writeFile(path.join(dir, "task.yml"), "prompt: x\nsandbox: off\n");
    expect(await readSandboxMode(path.join(dir, "task.yml"))).toBe("off");
    expect(await readSandboxMode(path.join(dir, "missing.yml"))).toBeUndefined();
    expect(await readSandboxMode(undefined)).toBeUndefined();
  });
});
