export { globMatch } from "./globs.ts";
export { checkCommand, preloadCommandPolicy } from "./judge.ts";
export type { CommandPolicy, CommandVerdict, PolicyContext } from "./types.ts";
