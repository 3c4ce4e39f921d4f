/**
 * Words a package script receives. `npm run lint -- --config evil.mjs` appends its words to the
 * `lint` script of package.json (`eslint src` becomes `eslint src --config evil.mjs`), so they are
 * judged as words of the script's last simple command: a risky option of that program is risky
 * here too, and must be named by the allow pattern. When the script cannot be read (no
 * package.json, no such script, the folder changed, a script ending in `;` or `&`), every
 * forwarded word that is or may become an option is risky.
 *
 * The script itself is project code the model may be able to edit: that is the sandbox's concern,
 * not the policy's (docs/tools.md).
 */
import { type Analysis, isDynamic, isOptionWord, type Word } from "../types.ts";
import type { ProgramInput } from "./program.ts";

export function forwardToScript(
  analysis: Analysis,
  input: ProgramInput,
  script: Word,
  forwarded: Word[],
): void {
  if (forwarded.length === 0) return;
  const name = script.text;
  const code = isDynamic(script) ? undefined : input.env.packageScripts()?.[name];
  const last =
    code !== undefined && !/[;&|({]\s*$/.test(code.trim()) ? input.env.parseCalls(code)?.at(-1) : undefined;
  if (last === undefined || last.words.length === 0) {
    for (const word of forwarded) {
      if (!isDynamic(word) && !isOptionWord(word)) continue;
      analysis.risks.push({
        word,
        chars: word.text.length,
        why: `is passed on to the \`${name}\` script, which this policy could not read, and could be an option of the program it runs`,
      });
    }
    return;
  }
  analysis.inner.push({
    call: { assigns: last.assigns, words: [...last.words, ...forwarded] },
    mode: "forwarded",
    only: new Set(forwarded),
  });
}
