/**
 * Writes one file of the outputs dir without following anything planted there: the data goes to a
 * new file of a random name (created exclusively, never through a symbolic link), which then
 * replaces the target by a rename (which replaces a link at the target instead of following it).
 * The outputs dir is inside the checkout by default, so a pull request could have put a link there.
 */
import { randomBytes } from "node:crypto";
import { constants } from "node:fs";
import { open, rename, rm } from "node:fs/promises";
import path from "node:path";

/** Replaces `file` with `data`; the folder must exist. Throws on a failure (nothing half-written is left). */
export async function writeOutputFile(file: string, data: string | Uint8Array): Promise<void> {
  const temp = path.join(path.dirname(file), `.${path.basename(file)}.${randomBytes(6).toString("hex")}.tmp`);
  const handle = await open(
    temp,
    constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL | constants.O_NOFOLLOW,
    0o644,
  );
  try {
    await handle.writeFile(data);
  } catch (error) {
    await handle.close();
    await rm(temp, { force: true });
    throw error;
  }
  await handle.close();
  try {
    await rename(temp, file);
  } catch (error) {
    await rm(temp, { force: true });
    throw error;
  }
}
