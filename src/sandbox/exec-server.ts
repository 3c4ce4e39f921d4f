/**
 * The exec server of a sandbox session: a small CommonJS program run as `node -e <source>` inside
 * the run's one long-lived bubblewrap, by the runner's own Node binary (so no file of it needs to
 * be visible inside, and no shell quoting is involved). Node rather than a bash loop: JSON lines,
 * process groups and exit statuses are one call each, with no parsing of our own.
 *
 * Protocol: JSON lines over its stdin (requests) and stdout (replies). It says
 * `{"event":"ready"}` once. Requests:
 * - `{"op":"start","id","script","cwd","env","output","graceMs"}`: opens `output` for appending
 *   (then makes it read-only, see bash-output-file.ts), runs `bash -c script` in `cwd` with exactly
 *   `env`, stdin /dev/null, stdout and stderr that file, in its own session and process group;
 *   replies `{"id","event":"started","pid"}`, then `{"id","event":"finished","code","signal"}`
 *   (`{"id","event":"finished","error"}` when it could not start).
 * - `{"op":"kill","id","graceMs"}`: SIGTERM to the command's process group, SIGKILL after `graceMs`.
 * When a command's leader exits, the rest of its group gets the same treatment. When its stdin
 * ends, it SIGKILLs every group it started and exits; bubblewrap then tears the PID namespace down
 * with whatever is left (`setsid` children included).
 */
export const EXEC_SERVER_SOURCE = String.raw`"use strict";
const { spawn } = require("node:child_process");
const fs = require("node:fs");
const live = new Map();
const send = (message) => process.stdout.write(JSON.stringify(message) + "\n");
const signalGroup = (pid, signal) => {
  try { process.kill(-pid, signal); return true; } catch { return false; }
};
const killGroup = (entry, graceMs) => {
  if (!signalGroup(entry.pid, "SIGTERM")) return;
  if (entry.timer) return;
  entry.timer = setTimeout(() => signalGroup(entry.pid, "SIGKILL"), graceMs);
};
const start = (m) => {
  let fd;
  try {
    fd = fs.openSync(m.output, fs.constants.O_WRONLY | fs.constants.O_APPEND | fs.constants.O_NOFOLLOW);
  } catch (error) {
    send({ id: m.id, event: "finished", error: "cannot open the output file: " + error.message });
    return;
  }
  try { fs.fchmodSync(fd, 0o400); } catch {}
  let child;
  try {
    child = spawn("bash", ["-c", m.script], { cwd: m.cwd, env: m.env, stdio: ["ignore", fd, fd], detached: true });
  } catch (error) {
    fs.closeSync(fd);
    send({ id: m.id, event: "finished", error: String(error && error.message) });
    return;
  }
  fs.closeSync(fd);
  const entry = { pid: child.pid, timer: undefined, graceMs: m.graceMs };
  let done = false;
  child.once("error", (error) => {
    if (done) return;
    done = true;
    live.delete(m.id);
    send({ id: m.id, event: "finished", error: error.message });
  });
  if (child.pid === undefined) return;
  live.set(m.id, entry);
  send({ id: m.id, event: "started", pid: child.pid });
  child.once("exit", (code, signal) => {
    if (done) return;
    done = true;
    killGroup(entry, entry.graceMs);
    live.delete(m.id);
    send({ id: m.id, event: "finished", code, signal });
  });
};
let buffered = "";
process.stdin.setEncoding("utf8");
process.stdin.on("data", (chunk) => {
  buffered += chunk;
  let end;
  while ((end = buffered.indexOf("\n")) !== -1) {
    const line = buffered.slice(0, end);
    buffered = buffered.slice(end + 1);
    let m;
    try { m = JSON.parse(line); } catch { continue; }
    if (m.op === "start") start(m);
    else if (m.op === "kill") {
      const entry = live.get(m.id);
      if (entry) killGroup(entry, m.graceMs);
    }
  }
});
process.stdin.on("end", () => {
  for (const entry of live.values()) signalGroup(entry.pid, "SIGKILL");
  process.exit(0);
});
send({ event: "ready" });
`;
