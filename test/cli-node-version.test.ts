import { spawnSync } from "node:child_process";
import { mkdtempSync, readFileSync, symlinkSync, writeFileSync } from "node:fs";
import { mkdir } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { describe, expect, test } from "vitest";
import { nodeVersionProblem } from "../src/system/node-version.ts";
import { BUILT_ACTION, BUILT_CLI, BUILT_DIST } from "./helpers/built.ts";
import { ROOT } from "./helpers/cli.ts";

/** A Node older than 22.12 on this machine (the system's own, outside node_modules/.bin), if any. */
function oldNode(): { bin: string; version: string } | undefined {
  const dirs = (process.env.PATH ?? "").split(path.delimiter).filter((d) => d && !d.includes("node_modules"));
  for (const dir of [...dirs, "/usr/local/bin", "/usr/bin"]) {
    const bin = path.join(dir, "node");
    const version = spawnSync(bin, ["-p", "process.versions.node"], { encoding: "utf8" }).stdout?.trim();
    if (version && nodeVersionProblem(version)) return { bin, version };
  }
  return undefined;
}

const old = oldNode();

function run(node: string, args: string[]) {
  const result = spawnSync(node, args, {
    cwd: ROOT,
    encoding: "utf8",
    env: { PATH: process.env.PATH, GITHUB_ACTIONS: "" },
  });
  return { code: result.status, stdout: result.stdout, stderr: result.stderr };
}

/** bin/agent-run.js as the package ships it, its ../dist being the bundle built for this test run. */
async function packagedBin(): Promise<string> {
  const dir = mkdtempSync(path.join(os.tmpdir(), "agent-run-pkg-"));
  await mkdir(path.join(dir, "bin"));
  writeFileSync(path.join(dir, "package.json"), '{ "type": "module" }\n');
  writeFileSync(
    path.join(dir, "bin", "agent-run.js"),
    readFileSync(path.join(ROOT, "bin", "agent-run.js"), "utf8"),
  );
  symlinkSync(BUILT_DIST, path.join(dir, "dist"));
  return path.join(dir, "bin", "agent-run.js");
}

describe("the Node version check", () => {
  test.for([
    ["20.20.2", true],
    ["22.11.9", true],
    ["22.12.0", false],
    ["22.13.1", false],
    ["24.0.0", false],
    ["100.1.0", false],
  ] as const)("Node %s is refused: %s", ([version, refused]) => {
    expect(nodeVersionProblem(version) !== undefined).toBe(refused);
  });

  test.skipIf(!old)(
    "on old Node the CLI, bin/agent-run.js and the action print one line and exit 2",
    async () => {
      const { bin, version } = old!;
      const line = `agent-run needs Node.js 22.12 or later; this is Node.js ${version} (${bin})\n`;
      for (const entry of [BUILT_CLI, await packagedBin()]) {
        for (const args of [["--version"], ["validate", "examples/lint-fix/task.yml"], ["task.yml"]]) {
          expect(run(bin, [entry, ...args])).toEqual({ code: 2, stdout: "", stderr: line });
        }
      }
      expect(run(bin, [BUILT_ACTION])).toEqual({ code: 2, stdout: `::error::${line}`, stderr: "" });
    },
  );

  test("on Node 24 they run", async () => {
    for (const entry of [BUILT_CLI, await packagedBin()]) {
      expect(run(process.execPath, [entry, "--version"])).toMatchObject({ code: 0, stderr: "" });
      const validated = run(process.execPath, [entry, "validate", "examples/lint-fix/task.yml"]);
      expect(validated.code).toBe(0);
      expect(validated.stdout).toContain("valid");
    }
  });
});
