/**
 * A cut command's full output is saved as the command wrote it (tool-output/), and keeps no secret
 * once the run has ended, whether the command printed it or a process it left behind wrote it
 * later: the look the runner takes as the command ends (src/run/saved-output-looks.ts) does not
 * spare the finish phase's redaction a file that changed after it. Through the built CLI.
 */
import { readdir, readFile, rm } from "node:fs/promises";
import path from "node:path";
import { afterEach, describe, expect, test } from "vitest";
import { runScriptedCli } from "./helpers/scripted-cli.ts";
import { trustWorkspace } from "./helpers/trust.ts";

const SECRET = "saved-output-secret-8f3a91c2";
const TASK = "model: anthropic:claude-sonnet-4-5\nprompt: run it\ntools: [bash]\n";
const ENV = { DEPLOY_TOKEN: SECRET };
const bash = (command: string) => ({ tool_calls: [{ name: "bash", arguments: { command } }] });
/** What Node prints under NODE_DEBUG=worker when the run makes the bundle's look worker. */
const WORKER_MADE = /create new worker \S*worker[/\\]secret-look\.cjs/;

const dirs: string[] = [];
afterEach(async () => {
  for (const dir of dirs.splice(0)) await rm(dir, { recursive: true, force: true });
});

async function savedOutputs(outDir: string): Promise<string[]> {
  const dir = path.join(outDir, "tool-output");
  const names = (await readdir(dir)).filter((name) => !name.startsWith("."));
  return Promise.all(names.map((name) => readFile(path.join(dir, name), "utf8")));
}

describe("saved outputs through the built CLI", () => {
  // A small output is looked through on the run's thread; one past WORKER_WARM_BYTES while it runs
  // in the bundle's worker (dist/worker/secret-look.cjs; NODE_DEBUG=worker has Node say when one
  // is made).
  const sizes = [
    { size: "0.6 MB", lines: 100_000, wait: "", worker: false },
    { size: "6.9 MB, looked through in the worker", lines: 1_000_000, wait: "; sleep 0.1", worker: true },
  ] as const;

  test.for(sizes)(
    "printed by the command ($size): redacted in the saved file",
    async ({ lines, wait, worker }) => {
      const dir = await trustWorkspace({ "a.txt": "a\n" }, { git: true });
      dirs.push(dir);
      const run = await runScriptedCli(
        dir,
        TASK,
        [bash(`seq 1 ${lines}${wait}; echo "key ${SECRET}"`), { text: "done" }],
        { env: { ...ENV, ...(worker && { NODE_DEBUG: "worker" }) } },
      );
      expect(run.code, run.stderr).toBe(0);
      if (worker) expect(run.stderr).toMatch(WORKER_MADE);
      const [saved] = await savedOutputs(run.outDir);
      expect(saved).toContain(`\n${lines - 1}\n${lines}\nkey ***\n`);
      expect(saved).not.toContain(SECRET);
    },
  );

  // Without the sandbox: inside it the outputs folder is read-only. (A process the command left
  // that appends to its output is cut back by the output guard; a rewrite in place is not.) The
  // look taken as the command ended found the file clean; the finish phase reads it again.
  test.for(sizes)(
    "without the sandbox, rewritten in place by a later command ($size): redacted too",
    async ({ lines, wait, worker }) => {
      const dir = await trustWorkspace({ "a.txt": "a\n" }, { git: true });
      dirs.push(dir);
      const rewrite = `f=$(ls .agent-run/tool-output/*call_1_*); chmod u+w "$f"; printf '${SECRET}\\n' | dd of="$f" conv=notrunc 2>/dev/null`;
      const run = await runScriptedCli(
        dir,
        `${TASK}sandbox: off\n`,
        [bash(`seq 1 ${lines}${wait}`), bash(rewrite), { text: "done" }],
        { env: { ...ENV, ...(worker && { NODE_DEBUG: "worker" }) } },
      );
      expect(run.code, run.stderr).toBe(0);
      if (worker) expect(run.stderr).toMatch(WORKER_MADE);
      const [saved] = await savedOutputs(run.outDir);
      expect(saved?.startsWith("***\n")).toBe(true);
      expect(saved).toContain(`\n${lines}\n`);
      expect(saved).not.toContain(SECRET);
    },
  );

  test("holding no secret: left as the command wrote it", async () => {
    const dir = await trustWorkspace({ "a.txt": "a\n" }, { git: true });
    dirs.push(dir);
    const run = await runScriptedCli(dir, TASK, [bash("seq 1 100000"), { text: "done" }], { env: ENV });
    expect(run.code, run.stderr).toBe(0);
    const [saved] = await savedOutputs(run.outDir);
    expect(saved).toBe(`${Array.from({ length: 100_000 }, (_, i) => i + 1).join("\n")}\n`);
  });

  // The saved file is looked through and redacted in pieces of about 64 KiB. In a `base64` dump
  // every line feed is inside one block, and for some of these offsets the secret's base64 lies
  // across the line feed the first piece would end at (a small output is looked through on the
  // run's thread, a big one in the worker).
  test.for([
    { size: "90 KB", zeros: 40_000, worker: false },
    { size: "3 MB, looked through in the worker", zeros: 2_200_000, worker: true },
  ])(
    "a secret's base64 across the place a piece ends ($size): gone from the saved file",
    async ({ zeros, worker }) => {
      const dir = await trustWorkspace({ "a.txt": "a\n" }, { git: true });
      dirs.push(dir);
      const shifts = Array.from({ length: 8 }, (_, i) => 48_440 + i * 9);
      const dump = (shift: number) =>
        `{ head -c ${shift} /dev/zero; printf '%s' '${SECRET}'; head -c ${zeros} /dev/zero; } | base64`;
      const run = await runScriptedCli(
        dir,
        TASK,
        [...shifts.map((shift) => bash(dump(shift))), { text: "done" }],
        {
          env: { ...ENV, ...(worker && { NODE_DEBUG: "worker" }) },
        },
      );
      expect(run.code, run.stderr).toBe(0);
      if (worker) expect(run.stderr).toMatch(WORKER_MADE);
      const saved = await savedOutputs(run.outDir);
      expect(saved).toHaveLength(shifts.length);
      for (const text of saved) {
        const joined = text.replace(/\n/g, "");
        for (let offset = 0; offset < 4; offset++) {
          expect(Buffer.from(joined.slice(offset), "base64").toString("latin1")).not.toContain(SECRET);
        }
      }
    },
  );
});
