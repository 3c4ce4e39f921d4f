/**
 * Objects written into a snapshot's private store by the runner itself rather than by a git
 * process (a start commit, a small index's trees): each a loose object, the zlib stream of
 * "<type> <size>\0<body>" in `objects/<2 hex>/<rest>`, named by the hash of those bytes.
 */
import { createHash } from "node:crypto";
import fs from "node:fs/promises";
import path from "node:path";
import { deflateSync } from "node:zlib";

/** An object ready to write: its id (hex) and its bytes before compression. */
export interface LooseObject {
  id: string;
  raw: Buffer;
}

/** `body` as an object of `type`; `hashBytes` 20 (SHA-1) or 32 (SHA-256), as the store's ids. */
export function looseObject(type: string, body: Buffer, hashBytes: number): LooseObject {
  const raw = Buffer.concat([Buffer.from(`${type} ${body.length}\0`), body]);
  return {
    id: createHash(hashBytes === 32 ? "sha256" : "sha1")
      .update(raw)
      .digest("hex"),
    raw,
  };
}

/** Writes `objects` into `gitDir`'s store; one already there is left as it is. */
export async function writeLooseObjects(gitDir: string, objects: readonly LooseObject[]): Promise<void> {
  const dirs = new Set(objects.map((object) => path.join(gitDir, "objects", object.id.slice(0, 2))));
  await Promise.all([...dirs].map((dir) => fs.mkdir(dir, { recursive: true })));
  await Promise.all(
    objects.map((object) =>
      // Level 0 as the store's `core.compression`: the store is thrown away at the end.
      fs
        .writeFile(
          path.join(gitDir, "objects", object.id.slice(0, 2), object.id.slice(2)),
          deflateSync(object.raw, { level: 0 }),
          {
            flag: "wx",
          },
        )
        .catch((error: NodeJS.ErrnoException) => {
          if (error.code !== "EEXIST") throw error;
        }),
    ),
  );
}
