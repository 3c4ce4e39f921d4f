/**
 * A file system's own clock: the ctime of a file made in a folder there. It is coarser than
 * Date.now() and not always in step with it (each file system truncates to its own granularity; one
 * served over the network takes the server's time), so "changed since" told by a ctime must be told
 * against this clock. The probe file is made exclusively under a fresh name (the folder may be one
 * a sandboxed command can write to) and removed at once.
 */
import { randomUUID } from "node:crypto";
import { open, rm } from "node:fs/promises";
import path from "node:path";

/** The clock of `dir`'s file system now. `suffix`: how the probe's name ends (what a folder's readers skip). */
export async function clockNow(dir: string, suffix = ""): Promise<bigint> {
  const probe = path.join(dir, `.clock-${randomUUID()}${suffix}`);
  const handle = await open(probe, "wx", 0o600);
  try {
    return (await handle.stat({ bigint: true })).ctimeNs;
  } finally {
    await handle.close();
    await rm(probe, { force: true });
  }
}

/** The clock of `dir`'s file system once it has passed `ns`; undefined when it has not within ~0.1 s. */
export async function clockAfter(dir: string, ns: bigint, suffix = ""): Promise<bigint | undefined> {
  for (let tries = 0; tries < 100; tries++) {
    const now = await clockNow(dir, suffix);
    if (now > ns) return now;
    await new Promise((resolve) => setTimeout(resolve, 1));
  }
  return undefined;
}
