/**
 * The bubblewrap probe's answer comes from what the probed binary does (its exit status and first
 * line of stderr), whoever starts it (the runner's spawner, or a spawn of the runner's own): a
 * bwrap that starts the sandbox is available, one that refuses an option or a namespace is not,
 * with the reason and what to do.
 */
import { chmod, mkdtemp, rm, writeFile } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { afterAll, expect, test } from "vitest";
import { detectSandbox } from "../src/sandbox/detect.ts";

const dirs: string[] = [];
afterAll(async () => {
  for (const dir of dirs.splice(0)) await rm(dir, { recursive: true, force: true });
});

async function fakeBwrap(body: string): Promise<string> {
  const dir = await mkdtemp(path.join(os.tmpdir(), "probe-test-"));
  dirs.push(dir);
  const file = path.join(dir, "bwrap");
  await writeFile(file, `#!/bin/sh\n${body}\n`);
  await chmod(file, 0o755);
  return file;
}

test.for([
  ["starts the sandbox", "exit 0", { available: true }],
  [
    "is too old",
    'echo "bwrap: Unknown option --size" >&2; exit 1',
    { available: false, reason: /Unknown option --size; the sandbox needs bubblewrap 0\.5 or later/ },
  ],
  [
    "may not make namespaces",
    'echo "bwrap: setting up uid map: Permission denied" >&2; echo "more" >&2; exit 1',
    { available: false, reason: /uid map: Permission denied; unprivileged user namespaces look disabled/ },
  ],
  ["dies by a signal", "kill -SEGV $$", { available: false, reason: /exit code 139|killed/ }],
] as const)("a bwrap that %s", async ([, body, expected]) => {
  const bwrapPath = await fakeBwrap(body);
  const support = await detectSandbox({ bwrapPath });
  expect(support.available).toBe(expected.available);
  expect(support.bwrapPath).toBe(bwrapPath);
  if ("reason" in expected) expect(support.reason).toMatch(expected.reason);
});
