export { globMatch } from "./globs.ts";
export { checkCommand } from "./judge.ts";
export type { CommandPolicy, CommandVerdict, PolicyContext } from "./types.ts";
