import type { CompactRunEvent } from "../run/compact-event.ts";
import { createTextRenderer } from "./text.ts";

/** The GitHub Actions log renderer: a `::group::` per turn. */
export function createGithubRenderer(write: (line: string) => void): (event: CompactRunEvent) => void {
  return createTextRenderer({ write, mode: "github", color: false });
}
