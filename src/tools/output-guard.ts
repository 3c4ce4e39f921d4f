/**
 * Bounds the command outputs a run saves on disk (docs/security.md, "Caps"): each command's file
 * (`caps.command_output`) and all of them together (`caps.saved_outputs`).
 *
 * The child writes its output file itself (bash-output-file.ts), so nothing passes through here
 * to count; instead a timer looks at each live file's size (one `fstat` per file every
 * `OUTPUT_GUARD_INTERVAL_MS`, never a read). A file past what it may hold is cut back to it
 * (`ftruncate`: the writers' descriptors are O_APPEND, so later writes land at the new end, with
 * no hole) and its command is told to stop. So the disk holds at most the caps plus what a
 * command writes in one interval.
 *
 * What a file may hold: the command cap, and no more than the run's total leaves once every other
 * file is counted. When the total is reached, the oldest finished files are removed first (cut to
 * zero, then unlinked); only when the live files alone fill it is a command stopped for it.
 *
 * A command can leave a process behind that still holds its output file (`setsid yes &`): with
 * `linger`, a finished command's file stays watched (its writer descriptor kept open) until
 * `dispose`, and anything written after the command ended is cut off again: each such file is
 * looked at every `OUTPUT_LINGER_INTERVAL_MS`, and one seen growing as often as a live one.
 */
import { fstatSync, ftruncateSync } from "node:fs";
import { closeQuietly, unlinkQuietly } from "../system/quiet-fs.ts";

/** Milliseconds between two size checks of a running command's output file: 50. */
export const OUTPUT_GUARD_INTERVAL_MS = 50;
/**
 * Milliseconds between the checks of a command's file in its first 40 ms of output (then every
 * OUTPUT_GUARD_INTERVAL_MS): 10. A big output is then seen (`onSize`) while the command has most
 * of its run ahead of it, not only at the interval's first tick (`seq 1 3000000` in bubblewrap
 * writes its 22.9 MB in ~60 ms, little of it in the first 10).
 */
export const OUTPUT_FIRST_CHECK_MS = 10;
/**
 * Checks every OUTPUT_FIRST_CHECK_MS that see the file hold bytes before the interval takes over:
 * 4. Counted from the first byte, since a command may first wait for the sandbox session's start
 * (40-70 ms here), which used them all up on an empty file.
 */
const FIRST_CHECKS = 4;
/** Early checks at most, however long the file stays empty: 100 (1 s). */
const FIRST_CHECKS_EMPTY = 100;
/** Milliseconds between two checks of finished commands' files (`linger`): 250. */
export const OUTPUT_LINGER_INTERVAL_MS = 250;
/**
 * Finished commands' files watched at most (`linger`), one descriptor each: 1024. Past it the
 * oldest one not seen growing is let go (most likely nobody writes to it any more).
 */
export const MAX_LINGERING_FILES = 1024;

export interface OutputGuardOptions {
  /** Bytes one command's file may hold (`caps.command_output`). */
  commandCapBytes: number;
  /** Bytes all files of the guard may hold together (`caps.saved_outputs`). */
  totalCapBytes: number;
  /** Keep watching finished commands' files until `dispose` (see the module comment). Default: false. */
  linger?: boolean;
  /** Default: OUTPUT_GUARD_INTERVAL_MS. */
  intervalMs?: number;
  /** Default: MAX_LINGERING_FILES. */
  maxLingering?: number;
  /** Told each live file's size at each check (what the guard reads anyway). Its exceptions are ignored. */
  onSize?: (bytes: number) => void;
}

/** Why a command's output was stopped, and what was kept. */
export interface OutputStop {
  /** "command": its own cap; "run": the run's total. */
  reason: "command" | "run";
  /** The cap that applied, in bytes. */
  capBytes: number;
  /** Bytes its file holds after the cut. */
  keptBytes: number;
}

export interface GuardedOutput {
  /** Checks the file now (the timer does it too); returns the stop once there is one. */
  check(): OutputStop | undefined;
  /** The largest size the file was seen at, in bytes. */
  readonly peakBytes: number;
  readonly stop: OutputStop | undefined;
  /**
   * The command is over. The guard takes the writer descriptor: it closes it (now, or at `dispose`
   * with `linger`); a file not `keep`t is cut to zero and unlinked.
   */
  end(keep: boolean): void;
}

export interface OutputGuard {
  readonly commandCapBytes: number;
  readonly totalCapBytes: number;
  /** Starts watching a live output file: its writer descriptor and path. */
  watch(file: { fd: number; path: string }, onStop: (stop: OutputStop) => void): GuardedOutput;
  /** Bytes the watched files hold now. */
  heldBytes(): number;
  /** Stops watching; closes the descriptors it holds. Idempotent. */
  dispose(): void;
}

interface Entry {
  /** The writer descriptor; undefined once closed (a finished file kept, without `linger`). */
  fd: number | undefined;
  path: string;
  /** Bytes counted against the total: the size last seen (live), the final size (ended, kept). */
  held: number;
  peak: number;
  live: boolean;
  /** Finished, but seen growing: a process it left behind still writes to it. */
  hot: boolean;
  kept: boolean;
  stop: OutputStop | undefined;
  onStop: (stop: OutputStop) => void;
}

export function createOutputGuard(options: OutputGuardOptions): OutputGuard {
  const commandCap = Math.max(0, Math.floor(options.commandCapBytes));
  const totalCap = Math.max(0, Math.floor(options.totalCapBytes));
  // Insertion order is age: eviction takes the oldest finished file first.
  const entries = new Set<Entry>();
  let liveTimer: NodeJS.Timeout | undefined;
  let lingerTimer: NodeJS.Timeout | undefined;
  let disposed = false;
  let total = 0;
  const setHeld = (entry: Entry, bytes: number) => {
    total += bytes - entry.held;
    entry.held = bytes;
  };

  /** Finished entries still watched, oldest first. */
  const lingering: Entry[] = [];
  /** Closes a finished entry's descriptor; a kept file still counts (and can be removed for room). */
  const release = (entry: Entry) => {
    closeQuietly(entry.fd);
    entry.fd = undefined;
    if (!entry.kept) entries.delete(entry);
  };

  /** Room for `entry` to hold `wanted` bytes, after removing the oldest finished files as needed. */
  const roomFor = (entry: Entry, wanted: number) => {
    for (const old of entries) {
      if (total - entry.held + wanted <= totalCap) break;
      if (old.live || !old.kept || old === entry || old.held === 0) continue;
      setHeld(old, 0);
      old.kept = false;
      cut(old.fd, 0);
      unlinkQuietly(old.path);
      if (old.fd === undefined) entries.delete(old);
    }
    return Math.max(0, totalCap - (total - entry.held));
  };

  const checkLive = (entry: Entry): OutputStop | undefined => {
    const size = sizeOf(entry.fd);
    if (size === undefined) return entry.stop;
    entry.peak = Math.max(entry.peak, size);
    if (options.onSize) {
      try {
        options.onSize(size);
      } catch {}
    }
    const allowed = Math.min(commandCap, roomFor(entry, Math.min(size, commandCap)));
    if (size > allowed) {
      cut(entry.fd, allowed);
      setHeld(entry, allowed);
      if (!entry.stop) {
        entry.stop = {
          reason: allowed < commandCap ? "run" : "command",
          capBytes: allowed < commandCap ? totalCap : commandCap,
          keptBytes: allowed,
        };
        try {
          entry.onStop(entry.stop);
        } catch {}
      } else {
        entry.stop.keptBytes = Math.min(entry.stop.keptBytes, allowed);
      }
    } else {
      setHeld(entry, size);
    }
    return entry.stop;
  };

  const checkLingering = (entry: Entry) => {
    if (entry.fd === undefined) return;
    const size = sizeOf(entry.fd);
    if (size === undefined || size <= entry.held) return;
    cut(entry.fd, entry.held);
    if (!entry.hot) {
      entry.hot = true;
      schedule();
    }
  };

  const schedule = () => {
    const anyLive = [...entries].some((entry) => entry.live || entry.hot);
    const anyLingering = [...entries].some((entry) => !entry.live && entry.fd !== undefined);
    if (anyLive && !liveTimer && !disposed) {
      liveTimer = setInterval(() => {
        for (const entry of entries) {
          if (entry.live) checkLive(entry);
          else if (entry.hot) checkLingering(entry);
        }
      }, options.intervalMs ?? OUTPUT_GUARD_INTERVAL_MS);
      liveTimer.unref();
    } else if (!anyLive && liveTimer) {
      clearInterval(liveTimer);
      liveTimer = undefined;
    }
    if (anyLingering && !lingerTimer && !disposed) {
      lingerTimer = setInterval(() => {
        for (const entry of entries) if (!entry.live) checkLingering(entry);
      }, OUTPUT_LINGER_INTERVAL_MS);
      lingerTimer.unref();
    }
  };

  return {
    commandCapBytes: commandCap,
    totalCapBytes: totalCap,
    watch(file, onStop) {
      const entry: Entry = {
        fd: file.fd,
        path: file.path,
        held: 0,
        peak: 0,
        live: true,
        hot: false,
        kept: false,
        stop: undefined,
        onStop,
      };
      entries.add(entry);
      schedule();
      let firstChecks = 0;
      let emptyChecks = 0;
      const first = setInterval(() => {
        if (entry.live && !disposed) checkLive(entry);
        if (entry.peak > 0) firstChecks++;
        else emptyChecks++;
        if (firstChecks >= FIRST_CHECKS || emptyChecks >= FIRST_CHECKS_EMPTY || !entry.live || disposed)
          clearInterval(first);
      }, OUTPUT_FIRST_CHECK_MS);
      first.unref();
      return {
        check: () => (entry.live ? checkLive(entry) : entry.stop),
        get peakBytes() {
          return entry.peak;
        },
        get stop() {
          return entry.stop;
        },
        end(keep) {
          if (!entry.live) return;
          clearInterval(first);
          checkLive(entry);
          entry.live = false;
          entry.kept = keep;
          if (!keep) {
            setHeld(entry, 0);
            cut(entry.fd, 0);
            unlinkQuietly(entry.path);
          }
          if (!options.linger || disposed) release(entry);
          else lingering.push(entry);
          while (lingering.length > (options.maxLingering ?? MAX_LINGERING_FILES)) {
            const quiet = lingering.findIndex((old) => !old.hot);
            const [old] = lingering.splice(quiet === -1 ? 0 : quiet, 1);
            if (old) release(old);
          }
          schedule();
        },
      };
    },
    heldBytes: () => total,
    dispose() {
      disposed = true;
      if (liveTimer) clearInterval(liveTimer);
      if (lingerTimer) clearInterval(lingerTimer);
      liveTimer = undefined;
      lingerTimer = undefined;
      lingering.length = 0;
      for (const entry of entries) {
        if (!entry.live) {
          checkLingering(entry);
          closeQuietly(entry.fd);
          entry.fd = undefined;
        }
      }
    },
  };
}

function sizeOf(fd: number | undefined): number | undefined {
  if (fd === undefined) return undefined;
  try {
    return fstatSync(fd).size;
  } catch {
    return undefined;
  }
}

function cut(fd: number | undefined, size: number): void {
  if (fd === undefined) return;
  try {
    ftruncateSync(fd, size);
  } catch {}
}
