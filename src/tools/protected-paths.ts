import picomatch from "picomatch";

/** The two forms of a path a protected glob is checked against. */
export interface ProtectedPathTarget {
  /** Root-relative, as named. */
  relative: string;
  /** Root-relative real location (every symlink resolved). */
  realRelative: string;
}

/**
 * Returns a check that names the first protected-path glob matching a path, or undefined.
 * Globs are relative to the workspace root, dotfiles included; `dir/**` also covers `dir` itself.
 * Both the path as named and its real location (after symlinks) are checked, so a symlink inside
 * the workspace cannot lead a write into a protected folder.
 */
export function createProtectedPathCheck(
  patterns: string[] | undefined,
): (target: ProtectedPathTarget) => string | undefined {
  if (!patterns || patterns.length === 0) return () => undefined;
  // Compiled on the first check, not when the run's tools are built: a run that writes nothing
  // never needs them, and the first model request does not wait for them.
  let matchers: Array<{ pattern: string; match: (path: string) => boolean }> | undefined;
  return (target) => {
    const candidates = [target.relative, target.realRelative];
    matchers ??= patterns.map((pattern) => ({ pattern, match: picomatch(pattern, { dot: true }) }));
    for (const { pattern, match } of matchers) {
      if (candidates.some((path) => match(path) || match(`${path}/`))) return pattern;
    }
    return undefined;
  };
}
