import picomatch from "picomatch";

/** The two forms of a path a protected glob is checked against. */
export interface ProtectedPathTarget {
  /** Root-relative, as named. */
  relative: string;
  /** Root-relative real location (every symlink resolved). */
  realRelative: string;
}

type Matcher = (path: string) => boolean;

/**
 * Every protected glob compiled so far, for the life of the process: the edit and write tools and
 * each bash command the policy judges check the same globs, and compiling a run's ~14 costs ~5 ms
 * (picomatch's parser, then V8 compiling each regex on its first test) that none of them should
 * pay again. Bounded by the globs of the specs a process loads.
 */
const compiled = new Map<string, Matcher>();

function matcherOf(pattern: string): Matcher {
  let match = compiled.get(pattern);
  if (!match) {
    match = picomatch(pattern, { dot: true });
    compiled.set(pattern, match);
  }
  return match;
}

/**
 * Compiles `patterns` now (the run calls it while the model streams its first tool call, so the
 * first edit does not wait for it) and tests each once, which makes V8 compile its regex too.
 */
export function compileProtectedPaths(patterns: readonly string[]): void {
  // Not "": picomatch answers that without its regex.
  for (const pattern of patterns) matcherOf(pattern)("x");
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
  let matchers: Array<{ pattern: string; match: Matcher }> | undefined;
  return (target) => {
    const candidates = [target.relative, target.realRelative];
    matchers ??= patterns.map((pattern) => ({ pattern, match: matcherOf(pattern) }));
    for (const { pattern, match } of matchers) {
      if (candidates.some((path) => match(path) || match(`${path}/`))) return pattern;
    }
    return undefined;
  };
}
