import fs from "node:fs/promises";
import path from "node:path";

/** Writes through a temp file and a rename, so a reader (or a kill) never sees half a file. */
export async function writeFileAtomic(
  file: string,
  data: string,
  encoding: BufferEncoding = "utf8",
): Promise<void> {
  await fs.mkdir(path.dirname(file), { recursive: true });
  const temp = `${file}.${process.pid}.tmp`;
  await fs.writeFile(temp, data, encoding);
  await fs.rename(temp, file);
}
