/**
 * The exec server of a sandbox session: a small program run as `node -e <source>` inside the run's
 * one long-lived bubblewrap, by the runner's own Node binary (so no file of it needs to be visible
 * inside, and no shell quoting is involved). It starts the bash tool's commands and does the file
 * tools' work (confined-fs.ts), so both act with the sandbox's mounts, namespaces and /proc. A run
 * without a sandbox runs it too, as a plain child process, for the bash tool's commands only
 * (command-server.ts).
 *
 * Protocol: frames (frames.ts) over its stdin (requests) and stdout (replies). It says
 * `{"event":"ready"}` once. Requests:
 * - `{op:"start",id,script,cwd,env,output,graceMs}`: opens `output` for appending (then makes it
 *   read-only, see bash-output-file.ts), runs `bash -c script` in `cwd` with exactly `env`, stdin
 *   /dev/null, stdout and stderr that file, in its own session and process group; replies
 *   `{id,event:"started",pid}`, then `{id,event:"finished",code,signal}` (`{…,error}` when it could
 *   not start).
 * - `{op:"kill",id,graceMs}`: SIGTERM to the command's process group, SIGKILL after `graceMs`.
 * - `{op:"quiet",id}`: replies `{id,event:"quiet",quiet}`, true when no process but the server and
 *   its ancestors (bubblewrap's init) lives in its PID namespace, zombies aside: then none of the
 *   model's does, and none can start but through a `start` (see sandbox/session.ts).
 * - `{op:"fs",id,root,call,…}`: one file operation below `root` (lookup, open, read, replace,
 *   close, write, editExact, list, readFiles; see session-files.ts), content as the payload either
 *   way (a handle's `replace` in pieces: `truncate` on the first, each at its `position`; `open`
 *   with `first` answers the file's first bytes too, and closes a handle for reading read whole
 *   then: `closed`; `editExact` answers null when it wrote nothing);
 *   replies `{id,event:"fs",ok:true,result}` or `{id,event:"fs",ok:false,code,message}`.
 * When a command's leader exits, the rest of its group gets the same treatment. When its stdin
 * ends, it SIGKILLs every group it started and exits; bubblewrap then tears the PID namespace down
 * with whatever is left (`setsid` children included).
 *
 * SERIALISED: `execServer` runs from its source text, with its dependencies passed in the same way
 * (see `EXEC_SERVER_SOURCE`): its body uses nothing but its parameter and globals.
 */
import type * as NodeChildProcess from "node:child_process";
import type * as NodeFs from "node:fs";
import { createConfinedFs } from "../tools/confined-fs.ts";
import { createConfinedWalk } from "../tools/confined-walk.ts";
import { exactBytesEdit } from "../tools/edit-bytes.ts";
import { looksBinary } from "../tools/file-kind.ts";
import { createFrameReader, encodeFrame } from "./frames.ts";

export interface ExecServerDeps {
  fs: typeof NodeFs;
  childProcess: typeof NodeChildProcess;
  createConfinedFs: typeof createConfinedFs;
  createConfinedWalk: typeof createConfinedWalk;
  looksBinary: typeof looksBinary;
  exactBytesEdit: typeof exactBytesEdit;
  createFrameReader: typeof createFrameReader;
  encodeFrame: typeof encodeFrame;
}

/** The largest payload either side sends in one frame: 64 MiB. */
export const MAX_FRAME_DATA_BYTES = 64 * 1024 * 1024;

/** The server's main function (see the module comment). */
export function execServer(deps: ExecServerDeps): void {
  const { fs, childProcess } = deps;
  const MAX_DATA = 64 * 1024 * 1024;
  const MAX_READ = 16 * 1024 * 1024;
  // An edit's window goes back in a JSON header (read up to 16 MiB; an escape is at most 6 bytes).
  const MAX_WINDOW = 1024 * 1024;
  // Spawn retries on EAGAIN, 25 ms doubling: about 3 s in all.
  const SPAWN_RETRIES = 7;
  interface Live {
    pid: number;
    timer: ReturnType<typeof setTimeout> | undefined;
    graceMs: number;
  }
  type Message = Record<string, unknown>;
  const live = new Map<number, Live>();
  const pause = new Int32Array(new SharedArrayBuffer(4));

  const writeAll = (bytes: Buffer) => {
    for (let offset = 0; offset < bytes.length; ) {
      try {
        offset += fs.writeSync(1, bytes, offset, bytes.length - offset);
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code !== "EAGAIN") throw error;
        Atomics.wait(pause, 0, 0, 1);
      }
    }
  };
  const send = (header: Message, data?: Uint8Array) => {
    for (const part of deps.encodeFrame(header, data)) writeAll(part);
  };

  const signalGroup = (pid: number, signal: NodeJS.Signals) => {
    try {
      process.kill(-pid, signal);
      return true;
    } catch {
      return false;
    }
  };
  const killGroup = (entry: Live, graceMs: number) => {
    if (!signalGroup(entry.pid, "SIGTERM") || entry.timer) return;
    entry.timer = setTimeout(() => signalGroup(entry.pid, "SIGKILL"), graceMs);
  };

  const start = (m: Message) => {
    const id = m.id as number;
    let fd: number;
    try {
      fd = fs.openSync(
        m.output as string,
        fs.constants.O_WRONLY | fs.constants.O_APPEND | fs.constants.O_NOFOLLOW,
      );
    } catch (error) {
      send({ id, event: "finished", error: `cannot open the output file: ${(error as Error).message}` });
      return;
    }
    try {
      fs.fchmodSync(fd, 0o400);
    } catch {}
    launch(m, id, fd, 0);
  };

  // A full pids cgroup refuses the fork (EAGAIN) while a stopped fork bomb's processes are still
  // being torn down; they are gone within moments, so the next command waits for them, bounded.
  const launch = (m: Message, id: number, fd: number, attempt: number) => {
    let child: NodeChildProcess.ChildProcess;
    try {
      child = childProcess.spawn("bash", ["-c", m.script as string], {
        cwd: m.cwd as string,
        env: m.env as Record<string, string>,
        stdio: ["ignore", fd, fd],
        detached: true,
      });
    } catch (error) {
      fs.closeSync(fd);
      send({ id, event: "finished", error: String((error as Error)?.message) });
      return;
    }
    let done = false;
    child.once("error", (error) => {
      if (done) return;
      done = true;
      live.delete(id);
      const unstarted = child.pid === undefined;
      if (unstarted && (error as NodeJS.ErrnoException).code === "EAGAIN" && attempt < SPAWN_RETRIES) {
        setTimeout(() => launch(m, id, fd, attempt + 1), 25 * 2 ** attempt);
        return;
      }
      if (unstarted) fs.closeSync(fd);
      send({ id, event: "finished", error: error.message });
    });
    if (child.pid === undefined) return;
    fs.closeSync(fd);
    const entry: Live = { pid: child.pid, timer: undefined, graceMs: m.graceMs as number };
    live.set(id, entry);
    send({ id, event: "started", pid: child.pid });
    child.once("exit", (code, signal) => {
      if (done) return;
      done = true;
      killGroup(entry, entry.graceMs);
      live.delete(id);
      send({ id, event: "finished", code, signal });
    });
  };

  // Read from /proc, which in the sandbox is the PID namespace's own: PID 1 is bubblewrap's init.
  // Unsandboxed (the command server) it is the host's, where other processes always live.
  const quiet = (): boolean => {
    const fields = (pid: string) => {
      const stat = fs.readFileSync(`/proc/${pid}/stat`, "utf8");
      // After the command name in parentheses (which may hold any character): state, parent.
      return stat.slice(stat.lastIndexOf(")") + 2).split(" ");
    };
    try {
      const own = new Set<string>();
      for (let pid = String(process.pid); pid !== "0" && !own.has(pid); pid = fields(pid)[1] ?? "0") {
        own.add(pid);
      }
      for (const name of fs.readdirSync("/proc")) {
        if (!/^[0-9]+$/.test(name) || own.has(name)) continue;
        let state: string;
        try {
          state = fields(name)[0] ?? "";
        } catch {
          continue; // gone since the listing
        }
        if (state !== "Z" && state !== "X") return false;
      }
      return true;
    } catch {
      return false;
    }
  };

  const roots = new Map<string, ReturnType<ExecServerDeps["createConfinedFs"]>>();
  let readBuffer = Buffer.alloc(0);
  const handles = new Set<number>();
  const fileOp = (m: Message, data: Buffer): { result: unknown; data?: Uint8Array } => {
    const root = m.root as string;
    let confined = roots.get(root);
    if (!confined) {
      confined = deps.createConfinedFs(
        {
          fs,
          createConfinedWalk: deps.createConfinedWalk,
          looksBinary: deps.looksBinary,
          exactBytesEdit: deps.exactBytesEdit,
        },
        root,
      );
      roots.set(root, confined);
    }
    const handle = m.handle as number;
    if (m.call === "read" || m.call === "replace" || m.call === "close") {
      if (!handles.has(handle)) throw Object.assign(new Error("no such handle"), { code: "io" });
    }
    switch (m.call) {
      case "lookup":
        return { result: confined.lookup(m.path as string) };
      case "open": {
        const opened = confined.open(m.path as string, m.mode as "read" | "edit", m.follow as boolean);
        handles.add(opened.fd);
        const first = typeof m.first === "number" ? Math.max(0, Math.min(MAX_READ, m.first)) : 0;
        if (first === 0) return { result: { handle: opened.fd, info: opened.info } };
        if (readBuffer.length < first) readBuffer = Buffer.allocUnsafe(first);
        let n: number;
        try {
          n = confined.read(opened.fd, readBuffer, 0, first, 0);
        } catch (error) {
          handles.delete(opened.fd);
          confined.close(opened.fd);
          throw error;
        }
        // Read whole (a short first block): a handle for reading has nothing left to do.
        const closed = m.mode === "read" && n < first;
        if (closed) {
          handles.delete(opened.fd);
          confined.close(opened.fd);
        }
        return { result: { handle: opened.fd, info: opened.info, closed }, data: readBuffer.subarray(0, n) };
      }
      case "read": {
        // One buffer for every read: the reply is written out (synchronously) before the next one.
        const length = Math.max(0, Math.min(MAX_READ, m.length as number));
        if (readBuffer.length < length) readBuffer = Buffer.allocUnsafe(length);
        const n = confined.read(handle, readBuffer, 0, length, m.position as number);
        return { result: { bytes: n }, data: readBuffer.subarray(0, n) };
      }
      case "replace": {
        // In pieces: the first truncates; each writes its payload at `position`.
        if (m.truncate === true) fs.ftruncateSync(handle, 0);
        for (let offset = 0; offset < data.length; ) {
          offset += fs.writeSync(handle, data, offset, data.length - offset, (m.position as number) + offset);
        }
        return { result: {} };
      }
      case "close":
        handles.delete(handle);
        confined.close(handle);
        return { result: {} };
      case "write":
        return { result: confined.writeFile(m.path as string, [data], m.follow as boolean) };
      case "editExact": {
        const limits = m.limits as { maxFileBytes: number; maxWindowChars: number };
        const edit = m.edit as { oldText: string; newText: string; replaceAll: boolean };
        const done = confined.editExact(m.path as string, edit, m.follow as boolean, {
          maxFileBytes: Math.min(limits.maxFileBytes, MAX_READ),
          maxWindowChars: Math.min(limits.maxWindowChars, MAX_WINDOW),
        });
        return { result: done ?? null };
      }
      case "list":
        return { result: confined.list(m.paths as string[], m.follow as boolean) };
      case "readFiles": {
        const options = m.options as { maxFileBytes: number; skipBinary: boolean; budgetBytes: number };
        const reads = confined.readFiles(m.paths as string[], m.follow as boolean, {
          ...options,
          maxFileBytes: Math.min(options.maxFileBytes, MAX_DATA),
          budgetBytes: Math.min(options.budgetBytes, MAX_DATA / 2),
        });
        const parts: Buffer[] = [];
        let total = 0;
        const result = reads.map((read) => {
          if (read.kind !== "content") return read;
          // A file that would push the payload past the frame limit waits for the next request.
          if (total > 0 && total + read.data.length > MAX_DATA) return { kind: "deferred" };
          parts.push(read.data);
          total += read.data.length;
          return { kind: "content", length: read.data.length };
        });
        return { result, data: Buffer.concat(parts, total) };
      }
      default:
        throw Object.assign(new Error(`unknown file operation ${String(m.call)}`), { code: "io" });
    }
  };

  const onFrame = (header: unknown, data: Buffer) => {
    const m = header as Message;
    if (m.op === "start") start(m);
    else if (m.op === "kill") {
      const entry = live.get(m.id as number);
      if (entry) killGroup(entry, m.graceMs as number);
    } else if (m.op === "quiet") {
      send({ id: m.id, event: "quiet", quiet: quiet() });
    } else if (m.op === "fs") {
      let reply: { result: unknown; data?: Uint8Array };
      try {
        reply = fileOp(m, data);
      } catch (error) {
        const code = (error as { code?: unknown }).code;
        send({
          id: m.id,
          event: "fs",
          ok: false,
          code: typeof code === "string" ? code : "io",
          message: error instanceof Error ? error.message : String(error),
        });
        return;
      }
      send({ id: m.id, event: "fs", ok: true, result: reply.result }, reply.data);
    }
  };

  const read = deps.createFrameReader(onFrame, { maxHeaderBytes: 16 * 1024 * 1024, maxDataBytes: MAX_DATA });
  process.stdin.on("data", (chunk: Buffer) => {
    try {
      read(chunk);
    } catch {
      process.exit(3);
    }
  });
  process.stdin.on("end", () => {
    for (const entry of live.values()) signalGroup(entry.pid, "SIGKILL");
    // The runner waits for this exit before it computes the patch; nothing is left to flush, and
    // Node's own teardown (freeing its heap, joining its threads) took ~2 of the ~7 ms.
    process.kill(process.pid, "SIGKILL");
  });
  send({ event: "ready" });
}

/**
 * `node -e` source of the server: `execServer` called with Node's modules and the other functions
 * it needs, each as its own source text. Starts with "use strict" (tests find the server by it).
 */
export const EXEC_SERVER_SOURCE = `"use strict";(${String(execServer)})({fs:require("node:fs"),childProcess:require("node:child_process"),createConfinedFs:${String(createConfinedFs)},createConfinedWalk:${String(createConfinedWalk)},looksBinary:${String(looksBinary)},exactBytesEdit:${String(exactBytesEdit)},createFrameReader:${String(createFrameReader)},encodeFrame:${String(encodeFrame)}});`;
