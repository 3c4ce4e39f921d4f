import { chmodSync, writeFileSync } from "node:fs";
import path from "node:path";
import { expect, test } from "vitest";
import { createSessionChannel } from "../src/sandbox/session-channel.ts";
import { isAlive, waitGone } from "./helpers/cli.ts";
import { processesWith } from "./helpers/trust.ts";
import { tempDir } from "./output-helpers.ts";

/**
 * A session's exec server the run started while the model thought and then never used (the model
 * answered with text only) is killed at the end with its process group, not waited for to finish
 * starting and read the end of its stdin. Here its "Node" is a script that sleeps before it would
 * start the real one: a server that is slow to start, and deaf to its stdin meanwhile.
 */
let markers = 0;
const marker = () => `320.${process.pid}${(Date.now() % 10_000) + 10 * ++markers}`;

function slowNode(dir: string, sleepFor: string): string {
  // Named with the marker too, so that both the script and its `sleep` are found by it.
  const file = path.join(dir, `slow-node-${sleepFor}`);
  writeFileSync(file, `#!/bin/sh\nsleep ${sleepFor}\nexec '${process.execPath}' "$@"\n`);
  chmodSync(file, 0o755);
  return file;
}

test("a server nothing was sent to is killed with its group at once, however slow its start", async () => {
  const dir = tempDir("agent-run-channel-");
  const sleepFor = marker();
  const downs: string[] = [];
  const channel = createSessionChannel({
    place: { unsandboxed: dir },
    serverEnv: { PATH: process.env.PATH ?? "/usr/bin:/bin" },
    onDown: (reason) => downs.push(reason),
    nodePath: slowNode(dir, sleepFor),
  });
  const started = channel.start(undefined);
  let pids: number[] = [];
  for (let waited = 0; pids.length < 2 && waited < 5000; waited += 20) {
    await new Promise((resolve) => setTimeout(resolve, 20));
    pids = processesWith(sleepFor);
  }
  // The script and its `sleep`, both in the server's process group.
  expect(pids.length).toBeGreaterThanOrEqual(2);

  const before = Date.now();
  await channel.dispose();
  // Closing its stdin would have waited for the 2 s kill.
  expect(Date.now() - before).toBeLessThan(1500);
  for (const pid of pids) expect(await waitGone(pid, 2000)).toBe(true);
  expect(await started).toBe(false);
  expect(channel.state).toBe("down");
  expect(pids.filter(isAlive)).toEqual([]);
});
