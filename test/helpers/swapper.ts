import os from "node:os";

/** renameat2 on this machine's architecture (x86_64 or aarch64). */
const RENAMEAT2 = os.arch() === "arm64" ? 276 : 316;

/**
 * A perl program (`perl -e SWAPPER name…`, run in the folder) that exchanges each name with
 * `<name>.link` atomically (renameat2 RENAME_EXCHANGE), as fast as it can, forever: each name
 * always exists, half the time as the real file or folder, half as the link.
 */
export const SWAPPER = `for(;;){for my $n (@ARGV){syscall(${RENAMEAT2},-100,"$n.link",-100,$n,2)}}`;
