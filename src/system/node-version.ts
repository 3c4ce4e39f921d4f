/**
 * The Node.js version agent-run needs (DESIGN §0 and §7). The bundles' entry files call
 * `nodeVersionProblem` before they load anything else, because the rest of the code uses APIs that
 * older Node lacks (Node 20 dies with "x.union is not a function", exit 4, which CI reads as
 * "retry"). This module is part of those entry files: keep it plain ES2017 with no imports, so
 * it parses and runs on any Node that can load an ES module.
 */

/** The oldest supported version, `major.minor`. */
export const REQUIRED_NODE = "22.12";

/**
 * One line saying which version is needed and which one runs, or undefined when `found` (default:
 * this process's version) is recent enough.
 */
export function nodeVersionProblem(found: string = process.versions.node): string | undefined {
  const required = REQUIRED_NODE.split(".").map(Number);
  const actual = found.split(".").map(Number);
  const major = actual[0] || 0;
  const minor = actual[1] || 0;
  if (major > required[0]! || (major === required[0] && minor >= required[1]!)) return undefined;
  return `agent-run needs Node.js ${REQUIRED_NODE} or later; this is Node.js ${found} (${process.execPath})`;
}
