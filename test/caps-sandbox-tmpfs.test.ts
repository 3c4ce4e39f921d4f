import { existsSync } from "node:fs";
import { rm } from "node:fs/promises";
import { afterEach, describe, expect, test } from "vitest";
import { NO_SANDBOX } from "./helpers/sandbox-available.ts";
import { resultText, runScriptedCli, toolEnds } from "./helpers/scripted-cli.ts";
import { trustWorkspace } from "./helpers/trust.ts";

const TASK = (extra = "") =>
  `model: anthropic:claude-sonnet-4-5\nprompt: fill\ntools: [bash]\nsandbox: required\n${extra}`;
const bash = (command: string) => ({ name: "bash", arguments: { command } });
const done = { text: "done" };
const GiB = 1024 ** 3;

const dirs: string[] = [];
afterEach(async () => {
  for (const dir of dirs.splice(0)) await rm(dir, { recursive: true, force: true });
});
async function workspace(): Promise<string> {
  const dir = await trustWorkspace({ "a.txt": "a\n" }, { git: true });
  dirs.push(dir);
  return dir;
}

describe.skipIf(NO_SANDBOX)(
  "the sandbox's /tmp, /dev/shm and $HOME have a size (CLI, real bubblewrap)",
  () => {
    test("a 2 GiB file fails at the default 1 GiB in each of them", async () => {
      const dir = await workspace();
      // One at a time, removed after: each holds up to 1 GiB of RAM while it is there.
      const fill = ([label, target]: [string, string]) =>
        `dd if=/dev/zero of=${target}/big bs=1M count=2048 2>&1 | grep -o "No space left on device"; echo "${label} exit \${PIPESTATUS[0]} size $(stat -c %s ${target}/big)"; rm -f ${target}/big`;
      const targets: [string, string][] = [
        ["tmp", "/tmp"],
        ["shm", "/dev/shm"],
        ["home", '"$HOME"'],
      ];
      const run = await runScriptedCli(dir, TASK(), [
        { tool_calls: [bash(targets.map(fill).join("; "))] },
        done,
      ]);
      expect(run.code).toBe(0);
      const text = resultText(toolEnds(run.events)[0]!);
      for (const [label] of targets) {
        const line = new RegExp(`${label} exit (\\d+) size (\\d+)`).exec(text);
        expect(line, text).not.toBeNull();
        expect(Number(line![1])).not.toBe(0);
        expect(Number(line![2])).toBeLessThanOrEqual(GiB);
        expect(Number(line![2])).toBeGreaterThan(GiB - 16 * 1024 ** 2);
      }
      expect(text.match(/No space left on device/g)).toHaveLength(3);
    }, 120_000);

    test("the sizes follow caps:, /dev/shm is the sandbox's own, /dev and /run take no files", async () => {
      const dir = await workspace();
      const marker = `agent-run-shm-${process.pid}-${Date.now()}`;
      const run = await runScriptedCli(
        dir,
        TASK("caps: { tmp_size: 8MiB, dev_shm_size: 4MiB, home_size: 2MiB }\n"),
        [
          {
            tool_calls: [
              bash('df -B1 --output=target,size /tmp /dev/shm "$HOME" | tail -n +2'),
              bash(`echo x > /dev/shm/${marker} && grep ' /dev/shm ' /proc/self/mountinfo`),
              bash("touch /dev/x; touch /run/x; mkdir /run/y; echo end"),
            ],
          },
          done,
        ],
      );
      expect(run.code).toBe(0);
      const [sizes, shm, others] = toolEnds(run.events).map(resultText);
      expect(sizes).toMatch(/\/tmp\s+8388608\n/);
      expect(sizes).toMatch(/\/dev\/shm\s+4194304\n/);
      expect(sizes).toMatch(/\s+2097152\n/);
      expect(shm).toMatch(/ \/dev\/shm .* - tmpfs tmpfs \S*size=4096k/);
      expect(existsSync(`/dev/shm/${marker}`)).toBe(false);
      expect(others).toContain("touch: cannot touch '/dev/x': Read-only file system");
      expect(others).toContain("touch: cannot touch '/run/x': Read-only file system");
      expect(others).toMatch(/mkdir: cannot create directory .\/run\/y.: Read-only file system/);
    }, 60_000);

    test("a command cannot lift the caps: no capability to remount, even when the runner is root", async () => {
      const dir = await workspace();
      const marker = `/agent-run-remount-${process.pid}-${Date.now()}`;
      dirs.push(marker);
      const run = await runScriptedCli(dir, TASK("caps: { tmp_size: 8MiB }\n"), [
        {
          tool_calls: [
            bash(
              `grep CapEff /proc/self/status; mount -o remount,size=4G /tmp; echo "resize $?"; mount -o remount,bind,rw / && touch ${marker}; echo "rw $?"; df -B1 --output=size /tmp | tail -1`,
            ),
          ],
        },
        done,
      ]);
      expect(run.code).toBe(0);
      const text = resultText(toolEnds(run.events)[0]!);
      expect(text).toContain("CapEff:\t0000000000000000");
      expect(text).toMatch(/resize [1-9]/);
      expect(text).toMatch(/rw [1-9]/);
      expect(text).toMatch(/\n\s*8388608\n/);
      expect(existsSync(marker)).toBe(false);
    }, 60_000);
  },
);
