export { createGithubRenderer } from "./github.ts";
export { createJsonRenderer } from "./json.ts";
export { createTextRenderer, type TextRendererOptions, type TextRenderMode } from "./text.ts";
