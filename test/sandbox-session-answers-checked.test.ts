/**
 * The exec server runs beside the model's commands, which could take it over: its answers are
 * untrusted data. Frames past the limits break the reader (the session goes down) instead of
 * growing the runner's memory, and malformed or oversized answers to file operations are errors.
 */
import { describe, expect, test } from "vitest";
import { createFrameReader, createSessionFileOperations, encodeFrame } from "../src/sandbox/index.ts";
import { WorkspacePathError } from "../src/tools/index.ts";

describe("frames", () => {
  test("a message split anywhere is read back whole, payload bytes intact", () => {
    const got: [unknown, string][] = [];
    const read = createFrameReader((header, data) => got.push([header, data.toString()]), {
      maxHeaderBytes: 1024,
      maxDataBytes: 1024,
    });
    const bytes = Buffer.concat([
      ...encodeFrame({ id: 1 }, Buffer.from("hello")),
      ...encodeFrame({ id: 2 }),
      ...encodeFrame({ id: 3 }, Buffer.from("é\n\0")),
    ]);
    for (let i = 0; i < bytes.length; i += 3) read(bytes.subarray(i, i + 3));
    expect(got).toEqual([
      [{ id: 1 }, "hello"],
      [{ id: 2 }, ""],
      [{ id: 3 }, "é\n\0"],
    ]);
  });

  test("a frame announcing more than the limit is refused before it is buffered", () => {
    const read = createFrameReader(() => {}, { maxHeaderBytes: 64, maxDataBytes: 1024 });
    const head = Buffer.alloc(8);
    head.writeUInt32LE(2, 0);
    head.writeUInt32LE(2 ** 31, 4);
    expect(() => read(head)).toThrow(/over the limit/);
    expect(() => read(Buffer.from("{}"))).toThrow(/over the limit/);
  });
});

describe("file operations over a session check every answer", () => {
  const answering = (result: unknown, data = Buffer.alloc(0)) =>
    createSessionFileOperations(async () => ({ result, data }), "/ws");

  test.for([
    ["a lookup without a kind", answering({ path: "a", size: 1, links: 1 })],
    ["a lookup with a kind it cannot have", answering({ path: "a", kind: "device", size: 1, links: 1 })],
  ] as const)("%s is an error", async ([, operations]) => {
    await expect(operations.lookup("a")).rejects.toThrow(/malformed answer/);
  });

  test("a listing with a name holding a slash is an error", async () => {
    const operations = answering([{ ok: true, entries: [{ name: "../../etc", kind: "dir" }] }]);
    await expect(operations.list(["."])).rejects.toThrow(/malformed answer/);
  });

  const BLOCK = 4 * 1024 * 1024;
  /** A server whose `open` sends `first` bytes more than it was asked for, and whose reads `more` more. */
  const overflowing = (first: number, more: number) =>
    createSessionFileOperations(async (header) => {
      const info = { path: "a", kind: "file", size: 2 * BLOCK, links: 1 };
      if (header.call === "open")
        return { result: { handle: 7, info }, data: Buffer.alloc(Number(header.first) + first) };
      if (header.call === "read") return { result: {}, data: Buffer.alloc(Number(header.length) + more) };
      return { result: {}, data: Buffer.alloc(0) };
    }, "/ws");

  test("an open that brings more of the file than was asked for is an error", async () => {
    await expect(overflowing(1, 0).open("a", "read")).rejects.toThrow(/malformed answer/);
  });

  test("a read that brings more bytes than were asked for is an error", async () => {
    const handle = await overflowing(0, 1).open("a", "read");
    const into = Buffer.alloc(BLOCK + 4);
    const error = await handle.read(into, 0, into.length, 0).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(WorkspacePathError);
  });

  test("file contents that claim more bytes than the payload holds are an error", async () => {
    const operations = answering([{ kind: "content", length: 50 }], Buffer.alloc(10));
    await expect(operations.readFiles(["a"], { maxFileBytes: 100 })).rejects.toThrow(/malformed answer/);
  });

  test("a refusal keeps its code and message", async () => {
    const operations = createSessionFileOperations(async () => {
      throw Object.assign(
        new Error(
          'Path "x" goes through the symlink "x", which leads outside the workspace (/etc); refused.',
        ),
        {
          code: "symlink-outside",
        },
      );
    }, "/ws");
    const error = await operations.lookup("x").catch((e: unknown) => e);
    expect(error).toBeInstanceOf(WorkspacePathError);
    expect((error as WorkspacePathError).code).toBe("symlink-outside");
  });
});
