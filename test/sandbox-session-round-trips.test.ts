/**
 * What the file tools ask of a sandbox session, counted: each request is a wake-up of the server
 * and of the runner, the larger part of a quick tool call's cost. A read is one request (the
 * content comes with `open`, and the server closes a handle it has read whole); an edit sends its
 * lookup and its open together, then one replace, unless it is a single exact edit of a path
 * with no link on the way: that, like a write of such a path, is one request. The server here is a map of files in memory that
 * answers as the exec server does (see exec-server.ts), one tick later.
 */
import { describe, expect, test } from "vitest";
import { createSessionFileOperations, type SessionRequest } from "../src/sandbox/index.ts";
import { exactBytesEdit } from "../src/tools/edit-bytes.ts";
import { createEditTool, createReadTool, createWriteTool } from "../src/tools/index.ts";
import type { ExactEdit } from "../src/tools/operations.ts";
import { failureOf, run, textOf } from "./tools-support.ts";

interface Call {
  call: string;
  path?: string;
  handle?: number;
  /** Answers given before this request was made. */
  answeredBefore: number;
}

/**
 * A session server over `files`. `realPath` says where a path leads (a link): `open` follows it
 * unless told not to, `lookup` answers it; `swapAfterOpen` changes where it leads once something
 * was opened, as a process swapping a link between two requests would.
 */
function fakeSession(
  files: Map<string, Buffer>,
  options: { realPath?: (path: string) => string; swapAfterOpen?: (path: string) => string } = {},
) {
  const calls: Call[] = [];
  const handles = new Map<number, string>();
  let nextHandle = 3;
  let answered = 0;
  let where = options.realPath ?? ((path: string) => path);
  const info = (path: string) => {
    const data = files.get(path);
    return { path, kind: data ? "file" : "missing", size: data?.length ?? 0, links: data ? 1 : 0 };
  };
  const serve = (header: Record<string, unknown>, data?: Uint8Array) => {
    const path = header.path as string;
    switch (header.call) {
      case "lookup":
        return { result: info(where(path)), data: Buffer.alloc(0) };
      case "open": {
        const real = header.follow === false ? path : where(path);
        const content = files.get(real);
        if (!content) throw Object.assign(new Error(`no file ${real}`), { code: "missing" });
        const handle = nextHandle++;
        handles.set(handle, real);
        const first = content.subarray(0, Number(header.first ?? 0));
        const closed = header.mode === "read" && first.length < Number(header.first ?? 0);
        if (closed) handles.delete(handle);
        if (options.swapAfterOpen) where = options.swapAfterOpen;
        return { result: { handle, info: info(real), closed }, data: first };
      }
      case "read": {
        const real = handles.get(header.handle as number);
        if (!real) throw Object.assign(new Error("no such handle"), { code: "io" });
        const start = header.position as number;
        return { result: {}, data: files.get(real)?.subarray(start, start + (header.length as number)) };
      }
      case "replace": {
        const real = handles.get(header.handle as number);
        if (!real) throw Object.assign(new Error("no such handle"), { code: "io" });
        const before = header.truncate ? Buffer.alloc(0) : (files.get(real) ?? Buffer.alloc(0));
        files.set(
          real,
          Buffer.concat([before.subarray(0, header.position as number), data ?? Buffer.alloc(0)]),
        );
        return { result: {}, data: Buffer.alloc(0) };
      }
      case "editExact": {
        const real = where(path);
        const content = files.get(real);
        if ((header.follow === false && real !== path) || !content) return { result: null };
        const done = exactBytesEdit(content, header.edit as ExactEdit);
        if (!done) return { result: null };
        files.set(real, Buffer.concat(done.parts));
        const { replacements, before, after, lineOffset } = done;
        return { result: { path: real, replacements, before, after, lineOffset }, data: Buffer.alloc(0) };
      }
      case "write": {
        const real = where(path);
        if (header.follow === false && real !== path)
          throw Object.assign(new Error(`"${path}" changed while it was being used`), { code: "changed" });
        const created = !files.has(real);
        files.set(real, Buffer.from(data ?? Buffer.alloc(0)));
        return { result: { created, path: real }, data: Buffer.alloc(0) };
      }
      case "close":
        if (!handles.delete(header.handle as number))
          throw Object.assign(new Error("no such handle"), { code: "io" });
        return { result: {}, data: Buffer.alloc(0) };
      default:
        throw new Error(`unexpected ${String(header.call)}`);
    }
  };
  const request: SessionRequest = (header, data) => {
    calls.push({
      call: header.call as string,
      ...(typeof header.path === "string" && { path: header.path }),
      ...(typeof header.handle === "number" && { handle: header.handle }),
      answeredBefore: answered,
    });
    return new Promise((resolve, reject) => {
      setImmediate(() => {
        answered++;
        try {
          const { result, data: payload } = serve(header, data);
          resolve({ result, data: Buffer.from(payload ?? Buffer.alloc(0)) });
        } catch (error) {
          reject(error);
        }
      });
    });
  };
  return { calls, handles, operations: createSessionFileOperations(request, "/ws") };
}

const settle = () => new Promise((resolve) => setImmediate(resolve));

describe("the file tools' requests to a sandbox session", () => {
  test("a read is one request: the content comes with open, and the server closed the handle", async () => {
    const files = new Map([["notes.txt", Buffer.from("one\ntwo\n")]]);
    const { calls, handles, operations } = fakeSession(files);
    const result = await run(createReadTool("/ws", { operations }), { path: "notes.txt" });
    await settle();
    expect(textOf(result)).toContain("1\tone\n2\ttwo");
    expect(calls.map((c) => c.call)).toEqual(["open"]);
    expect(handles.size).toBe(0);
  });

  test("a handle the server closed is never named again: its number may be another file's now", async () => {
    const files = new Map([
      ["small.txt", Buffer.from("tiny\n")],
      ["other.txt", Buffer.from("alpha beta\n")],
    ]);
    const { calls, operations } = fakeSession(files);
    const small = await operations.open("small.txt", "read");
    const other = await operations.open("other.txt", "edit");
    const into = Buffer.alloc(64);
    expect(await small.read(into, 0, into.length, 0)).toBe(5);
    expect(await small.read(into, 0, into.length, 5)).toBe(0);
    await small.close();
    await other.replace(["alpha gamma\n"]);
    await other.close();
    await settle();
    expect(files.get("other.txt")?.toString()).toBe("alpha gamma\n");
    expect(calls.map((c) => c.call)).toEqual(["open", "open", "replace", "close"]);
  });

  test("an exact edit of a path with no link on the way is one request, which follows no link", async () => {
    const files = new Map([["main.txt", Buffer.from("start\nmiddle\nend\n")]]);
    const { calls, handles, operations } = fakeSession(files);
    const result = await run(createEditTool("/ws", { operations, protectedPaths: ["ci/**"] }), {
      path: "main.txt",
      edits: [{ oldText: "middle", newText: "centre" }],
    });
    expect(files.get("main.txt")?.toString()).toBe("start\ncentre\nend\n");
    expect(calls.map((c) => c.call)).toEqual(["editExact"]);
    expect(handles.size).toBe(0);
    // The same words and details as the general path's.
    const general = fakeSession(new Map([["main.txt", Buffer.from("start\nmiddle\nend\n")]]));
    const { editExact: _, ...withoutOneStep } = general.operations;
    const expected = await run(createEditTool("/ws", { operations: withoutOneStep }), {
      path: "main.txt",
      edits: [{ oldText: "middle", newText: "centre" }],
    });
    expect(general.calls.map((c) => c.call)).toEqual(["open", "lookup", "replace", "close"]);
    expect(result).toEqual(expected);
  });

  test("an edit the one step cannot do sends its lookup and its open together, then one replace", async () => {
    const files = new Map([["main.txt", Buffer.from("start\nmiddle\nend\n")]]);
    const { calls, handles, operations } = fakeSession(files);
    // Two edits: not one step's. The three pieces of the new content go as one frame.
    await run(createEditTool("/ws", { operations }), {
      path: "main.txt",
      edits: [
        { oldText: "start", newText: "begin" },
        { oldText: "middle", newText: "centre" },
      ],
    });
    await settle();
    expect(files.get("main.txt")?.toString()).toBe("begin\ncentre\nend\n");
    expect(calls.map((c) => c.call)).toEqual(["open", "lookup", "replace", "close"]);
    expect(calls.slice(0, 2).map((c) => c.answeredBefore)).toEqual([0, 0]);
    expect(handles.size).toBe(0);
  });

  test("an edit whose text does not match exactly takes the general path, which matches it tolerantly", async () => {
    const files = new Map([["main.txt", Buffer.from("say(\u201chi\u201d)\n")]]);
    const { calls, operations } = fakeSession(files);
    const result = await run(createEditTool("/ws", { operations }), {
      path: "main.txt",
      edits: [{ oldText: 'say("hi")', newText: 'say("bye")' }],
    });
    expect(textOf(result)).toContain("matched after normalizing");
    expect(calls.map((c) => c.call).slice(0, 4)).toEqual(["editExact", "open", "lookup", "replace"]);
  });

  test("an edit through a link into a protected folder is refused and changes nothing", async () => {
    const files = new Map([["ci/deploy.yml", Buffer.from("steps: []\n")]]);
    const { calls, handles, operations } = fakeSession(files, {
      realPath: (path) => (path === "deploy.yml" ? "ci/deploy.yml" : path),
    });
    const edit = createEditTool("/ws", { operations, protectedPaths: ["ci/**"] });
    const failure = await failureOf(
      run(edit, { path: "deploy.yml", edits: [{ oldText: "[]", newText: "[evil]" }] }),
    );
    await settle();
    await settle();
    expect(failure).toBe('"deploy.yml" is protected (matches "ci/**"); it cannot be edited.');
    expect(files.get("ci/deploy.yml")?.toString()).toBe("steps: []\n");
    expect(calls.map((c) => c.call).filter((call) => call !== "close")).toEqual([
      "editExact",
      "open",
      "lookup",
    ]);
    expect(handles.size).toBe(0);
  });

  test("a path that leads elsewhere after the early open is edited where the lookup found it", async () => {
    const files = new Map([
      ["a.txt", Buffer.from("value = 1\n")],
      ["b.txt", Buffer.from("value = 1\n")],
    ]);
    // `link` leads to a.txt when opened, to b.txt by the time it is looked up.
    const { calls, handles, operations } = fakeSession(files, {
      realPath: (path) => (path === "link" ? "a.txt" : path),
      swapAfterOpen: (path) => (path === "link" ? "b.txt" : path),
    });
    await run(createEditTool("/ws", { operations }), {
      path: "link",
      edits: [{ oldText: "1", newText: "2" }],
    });
    await settle();
    expect(files.get("a.txt")?.toString()).toBe("value = 1\n");
    expect(files.get("b.txt")?.toString()).toBe("value = 2\n");
    const opens = calls.filter((c) => c.call === "open").map((c) => c.path);
    expect(opens).toEqual(["link", "b.txt"]);
    expect(handles.size).toBe(0);
  });

  test("an edit refused after the lookup lets go of the file it opened and changes nothing", async () => {
    const files = new Map([["ci/deploy.yml", Buffer.from("steps: []\n")]]);
    const { calls, handles, operations } = fakeSession(files);
    const edit = createEditTool("/ws", { operations, protectedPaths: ["ci/**"] });
    const failure = await failureOf(
      run(edit, { path: "ci/deploy.yml", edits: [{ oldText: "[]", newText: "[evil]" }] }),
    );
    await settle();
    await settle();
    expect(failure).toMatch(/is protected/);
    expect(files.get("ci/deploy.yml")?.toString()).toBe("steps: []\n");
    expect(calls.map((c) => c.call)).not.toContain("replace");
    expect(handles.size).toBe(0);
  });

  test("a write of a path with no link on the way is one request, which follows no link", async () => {
    const files = new Map<string, Buffer>();
    const { calls, operations } = fakeSession(files);
    const result = await run(createWriteTool("/ws", { operations, protectedPaths: ["ci/**"] }), {
      path: "src/new.ts",
      content: "export {};\n",
    });
    expect(textOf(result)).toContain("(new file)");
    expect(files.get("src/new.ts")?.toString()).toBe("export {};\n");
    expect(calls.map((c) => c.call)).toEqual(["write"]);
  });

  test("a write through a link is looked up, then made at the link's real location", async () => {
    const files = new Map([["real/notes.md", Buffer.from("old\n")]]);
    const { calls, operations } = fakeSession(files, {
      realPath: (path) => path.replace(/^docs\//, "real/"),
    });
    const result = await run(createWriteTool("/ws", { operations }), {
      path: "docs/notes.md",
      content: "new\n",
    });
    expect(textOf(result)).toBe("Wrote 4 bytes to docs/notes.md.");
    expect([...files.keys()]).toEqual(["real/notes.md"]);
    expect(files.get("real/notes.md")?.toString()).toBe("new\n");
    expect(calls.map((c) => [c.call, c.path])).toEqual([
      ["write", "docs/notes.md"],
      ["lookup", "docs/notes.md"],
      ["write", "real/notes.md"],
    ]);
  });

  test("a write through a link into a protected folder is refused and writes nothing", async () => {
    const files = new Map([["ci/deploy.yml", Buffer.from("steps: []\n")]]);
    const { calls, operations } = fakeSession(files, {
      realPath: (path) => (path === "deploy.yml" ? "ci/deploy.yml" : path),
    });
    const write = createWriteTool("/ws", { operations, protectedPaths: ["ci/**"] });
    const failure = await failureOf(run(write, { path: "deploy.yml", content: "steps: [evil]\n" }));
    expect(failure).toBe('"deploy.yml" is protected (matches "ci/**"); it cannot be written.');
    expect(files.get("ci/deploy.yml")?.toString()).toBe("steps: []\n");
    expect(calls.map((c) => c.call)).toEqual(["write", "lookup"]);
  });

  test("a protected path as named is not tried at all", async () => {
    const files = new Map<string, Buffer>();
    const { calls, operations } = fakeSession(files);
    const write = createWriteTool("/ws", { operations, protectedPaths: [".github/**"] });
    const failure = await failureOf(run(write, { path: ".github/workflows/x.yml", content: "on: push\n" }));
    expect(failure).toMatch(/is protected \(matches "\.github\/\*\*"\)/);
    expect(files.size).toBe(0);
    expect(calls.map((c) => c.call)).toEqual(["lookup"]);
  });
});
