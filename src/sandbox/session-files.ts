/**
 * The file tools' operations (`FileOperations`) done by a sandbox session's exec server, so the
 * walks of confined-fs.ts run with the sandbox's mounts: the workspace writable, protected paths
 * read-only, nothing else writable, the sandbox's own /proc.
 *
 * Throughput: content travels as raw frame payloads (frames.ts). A handle reads the file in
 * blocks of 4 MiB and asks for the next ones while the caller works on this one, so a 200 MB read
 * keeps the pipe busy instead of waiting a round trip per chunk; the payloads are copied into
 * buffers the handle reuses, so such a read allocates (and collects) next to nothing. Batches
 * (`list`, `readFiles`) are split into requests of bounded size, so a walk costs a few round trips
 * per folder level.
 *
 * Latency: each request wakes the server and then the runner (~0.2-0.5 ms on a 2-core runner, more
 * than the work itself), so a quick tool makes few: `open` brings the first block with it (a read
 * of a file under 4 MiB is one request; the server closes such a handle itself), `editExact` does
 * a single exact edit in one request (and `write` a whole file), `replace` sends small content as
 * one frame, and requests made in one tick go out in one write (the session's channel), as the
 * general edit path's lookup and open do.
 *
 * The server's replies are data from inside the sandbox, which a sandboxed process could forge:
 * every reply is checked for shape and size before use; a bad one is an error.
 */
import type { DirListing, FileContent, FileHandle, FileOperations, PathInfo } from "../tools/operations.ts";
import { WorkspacePathError } from "../tools/workspace-path.ts";

/**
 * One request to the exec server: resolves its result and payload, rejects with `{ code, message }`.
 * `into`, when given, may supply the buffer the answer's payload is copied into as it arrives.
 */
export type SessionRequest = (
  header: Record<string, unknown>,
  data?: Uint8Array,
  into?: (length: number) => Buffer | undefined,
) => Promise<{ result: unknown; data: Buffer }>;

/** Bytes one `read` request asks for: 4 MiB. */
const READ_BLOCK = 4 * 1024 * 1024;
/** Blocks a handle asks for ahead of a sequential reader: 2. */
const READ_AHEAD = 2;
/** Bytes one `replace` frame carries at most: 16 MiB. */
const MAX_WRITE_FRAME = 16 * 1024 * 1024;
/** Paths per `list` request and per `readFiles` request. */
const LIST_BATCH = 512;
const READ_BATCH = 256;
/** The byte budget of one `readFiles` request: 8 MiB. */
const READ_BUDGET = 8 * 1024 * 1024;
/**
 * An edit in one request (`editExact`): the edit's texts and the changed window travel in JSON
 * headers, which either side reads up to 16 MiB; a JSON escape is at most 6 bytes a UTF-16 unit.
 * Larger edits, or edits of files over 16 MiB, take the open-and-replace path.
 */
const EDIT_TEXT_CHARS = 1024 * 1024;
const EDIT_FILE_BYTES = 16 * 1024 * 1024;

/** File operations below `root` through `request` (see the module comment). */
export function createSessionFileOperations(request: SessionRequest, root: string): FileOperations {
  const call: Call = async (path, header, data, into) => {
    try {
      return await request({ op: "fs", root, ...header }, data, into);
    } catch (error) {
      throw asWorkspaceError(error, path);
    }
  };

  return {
    async lookup(path) {
      return pathInfo((await call(path, { call: "lookup", path })).result, path);
    },
    async open(path, mode, options = {}) {
      // The first block comes with the answer: a file that fits in it is read in one round trip,
      // and one opened for reading is then closed by the server at once.
      const { result, data } = await call(path, {
        call: "open",
        path,
        mode,
        follow: options.follow ?? true,
        first: READ_BLOCK,
      });
      const opened = result as { handle?: unknown; info?: unknown; closed?: unknown } | null;
      if (typeof opened?.handle !== "number" || data.length > READ_BLOCK) throw broken(path);
      return handleOf(call, opened.handle, pathInfo(opened.info, path), path, {
        data,
        closed: opened.closed === true,
      });
    },
    async writeFile(path, parts, options = {}) {
      const data = Buffer.concat(
        parts.map((part) => (typeof part === "string" ? Buffer.from(part, "utf8") : part)),
      );
      if (data.length > MAX_WRITE_FRAME * 4) {
        throw new WorkspacePathError(
          "io",
          path,
          `The content for "${path}" is too large to write (${data.length} bytes).`,
        );
      }
      const { result } = await call(path, { call: "write", path, follow: options.follow ?? true }, data);
      const written = result as { created?: unknown; path?: unknown } | null;
      if (typeof written?.created !== "boolean" || typeof written.path !== "string") throw broken(path);
      return { created: written.created, path: written.path };
    },
    async editExact(path, edit, options = {}) {
      if (edit.oldText.length + edit.newText.length > EDIT_TEXT_CHARS) return undefined;
      const { result } = await call(path, {
        call: "editExact",
        path,
        follow: options.follow ?? true,
        edit: { oldText: edit.oldText, newText: edit.newText, replaceAll: edit.replaceAll === true },
        limits: { maxFileBytes: EDIT_FILE_BYTES, maxWindowChars: EDIT_TEXT_CHARS },
      });
      if (result === null) return undefined;
      const done = result as Partial<Record<string, unknown>>;
      if (
        typeof done?.path !== "string" ||
        typeof done.replacements !== "number" ||
        typeof done.before !== "string" ||
        typeof done.after !== "string" ||
        typeof done.lineOffset !== "number"
      ) {
        throw broken(path);
      }
      const { replacements, before, after, lineOffset } = done;
      return { path: done.path, replacements, before, after, lineOffset };
    },
    async list(paths, options = {}) {
      const out: DirListing[] = [];
      for (let i = 0; i < paths.length; i += LIST_BATCH) {
        const batch = paths.slice(i, i + LIST_BATCH);
        const { result } = await call(batch[0] ?? ".", {
          call: "list",
          paths: batch,
          follow: options.follow ?? true,
        });
        if (!Array.isArray(result) || result.length !== batch.length) throw broken(batch[0] ?? ".");
        out.push(...result.map((listing) => dirListing(listing, batch[0] ?? ".")));
      }
      return out;
    },
    async readFiles(paths, options) {
      const out: FileContent[] = paths.map(() => ({ kind: "deferred" }));
      const budget = options.budgetBytes ?? Number.POSITIVE_INFINITY;
      let spent = 0;
      let next = 0;
      while (next < paths.length && (next === 0 || spent < budget)) {
        const batch = paths.slice(next, next + READ_BATCH);
        const { result, data } = await call(batch[0] ?? ".", {
          call: "readFiles",
          paths: batch,
          follow: options.follow ?? true,
          options: {
            maxFileBytes: options.maxFileBytes,
            skipBinary: options.skipBinary ?? false,
            budgetBytes: Math.min(READ_BUDGET, Math.max(1, budget - spent)),
          },
        });
        if (!Array.isArray(result) || result.length !== batch.length) throw broken(batch[0] ?? ".");
        let offset = 0;
        let read = 0;
        for (const [i, item] of result.entries()) {
          const content = fileContent(item, data, offset, batch[i] ?? ".");
          if (content.kind === "deferred") break;
          if (content.kind === "content") {
            offset += content.data.length;
            spent += content.data.length;
          }
          out[next + i] = content;
          read++;
        }
        if (read === 0) throw broken(batch[0] ?? ".");
        next += read;
      }
      return out;
    },
  };
}

/** One block of the file asked for, and the buffer its answer is copied into (kept for reuse). */
interface Block {
  index: number;
  data: Promise<Buffer>;
  into?: Buffer;
}

type Call = (
  path: string,
  header: Record<string, unknown>,
  data?: Uint8Array,
  into?: (length: number) => Buffer | undefined,
) => Promise<{ result: unknown; data: Buffer }>;

/**
 * `first`: the file's first block, from `open`'s answer; `closed` when the server closed the handle
 * then (the block was the whole file): nothing is asked of it again, since its number may already
 * be another file's.
 */
function handleOf(
  call: Call,
  handle: number,
  info: PathInfo,
  path: string,
  first: { data: Buffer; closed: boolean },
): FileHandle {
  let closed = false;
  const serverClosed = first.closed;
  /**
   * The file is read from the server in blocks of READ_BLOCK bytes, whatever sizes the caller
   * asks for; the blocks after the last one read are asked for ahead (READ_AHEAD), so a
   * sequential reader finds its next bytes on the way. Their payloads land in buffers kept for
   * reuse (`spare`): a long read allocates next to nothing.
   */
  let blocks: Block[] = [{ index: 0, data: Promise.resolve(first.data) }];
  const spare: Buffer[] = [];
  const fetch = (index: number): Block => {
    // Past the whole file the server sent (it may have grown since): the end, as at a short block.
    if (serverClosed) return { index, data: Promise.resolve(Buffer.alloc(0)) };
    const into = spare.pop() ?? Buffer.allocUnsafe(READ_BLOCK);
    const position = index * READ_BLOCK;
    const data = call(path, { call: "read", handle, position, length: READ_BLOCK }, undefined, (n) =>
      n <= READ_BLOCK ? into : undefined,
    ).then(({ data }) => {
      if (data.length > READ_BLOCK) throw broken(path);
      return data;
    });
    data.catch(() => {});
    return { index, data, into };
  };
  const block = (index: number): Block => {
    let found = blocks.find((candidate) => candidate.index === index);
    if (!found) {
      found = fetch(index);
      blocks.push(found);
    }
    return found;
  };
  /** Drops the blocks before `index` (their buffers go back for reuse) and asks for those after it. */
  const slide = (index: number) => {
    blocks = blocks.filter((candidate) => {
      if (candidate.index >= index) return true;
      const { into } = candidate;
      if (into)
        candidate.data.then(
          () => spare.length < READ_AHEAD + 2 && spare.push(into),
          () => {},
        );
      return false;
    });
    for (let next = index + 1; next <= index + READ_AHEAD && next * READ_BLOCK < info.size; next++)
      block(next);
  };
  return {
    info,
    async read(buffer, offset, length, position) {
      if (closed) throw new WorkspacePathError("io", path, `"${path}" is already closed.`);
      let done = 0;
      while (done < length) {
        const at = position + done;
        const index = Math.floor(at / READ_BLOCK);
        const current = block(index);
        slide(index);
        const data = await current.data;
        const from = at - index * READ_BLOCK;
        if (from >= data.length) break;
        const n = Math.min(length - done, data.length - from);
        buffer.set(data.subarray(from, from + n), offset + done);
        done += n;
        if (data.length < READ_BLOCK) break;
      }
      return done;
    },
    async replace(parts) {
      if (serverClosed) throw new WorkspacePathError("io", path, `"${path}" was opened for reading.`);
      const frames: Uint8Array[] = [];
      const pieces = parts.map((part) => (typeof part === "string" ? Buffer.from(part, "utf8") : part));
      const total = pieces.reduce((sum, piece) => sum + piece.length, 0);
      // Small content goes as one frame: an edit's three pieces would be three round trips.
      for (const bytes of total <= MAX_WRITE_FRAME ? [Buffer.concat(pieces, total)] : pieces) {
        for (let start = 0; start < bytes.length; start += MAX_WRITE_FRAME) {
          frames.push(bytes.subarray(start, start + MAX_WRITE_FRAME));
        }
      }
      if (frames.length === 0) frames.push(new Uint8Array(0));
      blocks = [];
      let position = 0;
      const sent = frames.map((frame, i) => {
        const reply = call(path, { call: "replace", handle, position, truncate: i === 0 }, frame);
        position += frame.length;
        return reply;
      });
      await Promise.all(sent);
    },
    async close() {
      if (closed) return;
      closed = true;
      blocks = [];
      if (serverClosed) return;
      // Requests are served in order, so nothing sent later can find it open: no need to wait.
      call(path, { call: "close", handle }).catch(() => undefined);
    },
  };
}

function broken(path: string): WorkspacePathError {
  return new WorkspacePathError("io", path, `The sandbox session gave a malformed answer for "${path}".`);
}

function asWorkspaceError(error: unknown, path: string): WorkspacePathError {
  if (error instanceof WorkspacePathError) return error;
  const failure = error as { code?: unknown; message?: unknown };
  const message = typeof failure?.message === "string" ? failure.message : String(error);
  return WorkspacePathError.from(
    { code: typeof failure?.code === "string" ? failure.code : "io", message },
    path,
  );
}

const KINDS = new Set(["file", "dir", "missing"]);
const ENTRY_KINDS = new Set(["file", "dir", "symlink", "other"]);

function pathInfo(value: unknown, path: string): PathInfo {
  const info = value as Partial<PathInfo> | null;
  if (
    typeof info?.path !== "string" ||
    !KINDS.has(info.kind as string) ||
    typeof info.size !== "number" ||
    typeof info.links !== "number"
  ) {
    throw broken(path);
  }
  return { path: info.path, kind: info.kind as PathInfo["kind"], size: info.size, links: info.links };
}

function dirListing(value: unknown, path: string): DirListing {
  const listing = value as { ok?: unknown; entries?: unknown; code?: unknown; message?: unknown } | null;
  if (listing?.ok === false && typeof listing.code === "string" && typeof listing.message === "string") {
    return { ok: false, code: listing.code, message: listing.message };
  }
  if (listing?.ok !== true || !Array.isArray(listing.entries)) throw broken(path);
  const entries = listing.entries.map((entry: { name?: unknown; kind?: unknown } | null) => {
    if (
      typeof entry?.name !== "string" ||
      !ENTRY_KINDS.has(entry.kind as string) ||
      entry.name.includes("/")
    ) {
      throw broken(path);
    }
    return { name: entry.name, kind: entry.kind as "file" | "dir" | "symlink" | "other" };
  });
  return { ok: true, entries };
}

function fileContent(value: unknown, data: Buffer, offset: number, path: string): FileContent {
  const item = value as {
    kind?: unknown;
    length?: unknown;
    reason?: unknown;
    size?: unknown;
    code?: unknown;
    message?: unknown;
  } | null;
  switch (item?.kind) {
    case "content":
      if (typeof item.length !== "number" || offset + item.length > data.length) throw broken(path);
      return { kind: "content", data: data.subarray(offset, offset + item.length) };
    case "skipped":
      if ((item.reason !== "too-big" && item.reason !== "binary") || typeof item.size !== "number")
        throw broken(path);
      return { kind: "skipped", reason: item.reason, size: item.size };
    case "deferred":
      return { kind: "deferred" };
    case "error":
      if (typeof item.code !== "string" || typeof item.message !== "string") throw broken(path);
      return { kind: "error", code: item.code, message: item.message };
    default:
      throw broken(path);
  }
}
