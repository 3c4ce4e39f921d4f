/** The PR comment pings no one, closes nothing, links nowhere but GitHub, and withholds a patch holding a secret. */
import { describe, expect, test } from "vitest";
import { PATCH_WITHHELD_NOTICE, withholdPatch } from "../src/action/comment-body.ts";
import { isAllowedHost, neutralizeComment } from "../src/action/comment-hygiene.ts";

const ZWSP = "\u200b";
const ZWJ = "\u200d";

describe("comment hygiene", () => {
  test("the issue's attack: @someone fixes #1 <img src=x onerror=…>", () => {
    const out = neutralizeComment("Done. @someone fixes #1 <img src=x onerror=alert(1)>");
    expect(out).toBe(`Done. @${ZWSP}someone f${ZWJ}ixes #1 &lt;img src=x onerror=alert(1)>`);
  });

  test.for([
    ["closes org/repo#2", `c${ZWJ}loses org/repo#2`],
    ["Resolved: #3", `R${ZWJ}esolved: #3`],
    ["fix https://github.com/o/r/issues/4", `f${ZWJ}ix https://github.com/o/r/issues/4`],
    ["fixed the bug in #5's parser", "fixed the bug in #5's parser"],
    ["a prefix not a keyword #6", "a prefix not a keyword #6"],
    ["mail me at dev@example.com", "mail me at dev@example.com"],
    ["cc @org/team", `cc @${ZWSP}org/team`],
  ] as [string, string][])("%j", ([input, expected]) => {
    expect(neutralizeComment(input)).toBe(expected);
  });

  test("links and images to unknown hosts are removed; GitHub's and the server's stay", () => {
    const out = neutralizeComment(
      [
        "![track](https://evil.example/pixel.png) [docs](https://evil.example/x) [ok](https://github.com/o/r/pull/1)",
        "see https://evil.example/a and www.evil.example and https://ghe.corp.example/o/r",
        "[js](javascript:alert(1)) [rel](./README.md) <https://evil.example/auto>",
        "[ref]: https://evil.example/ref",
      ].join("\n"),
      ["ghe.corp.example"],
    );
    expect(out.split("\n")).toEqual([
      "[image from evil.example removed] docs (link to evil.example removed) [ok](https://github.com/o/r/pull/1)",
      "see `https://evil.example/a` and `www.evil.example` and https://ghe.corp.example/o/r",
      // The autolink's brackets now hold a code span, which is no autolink.
      "js (link to javascript: removed)) [rel](./README.md) <`https://evil.example/auto`>",
      "[ref]: `https://evil.example/ref`",
    ]);
  });

  test("raw HTML other than the summary's own details/summary is escaped, hidden comments included", () => {
    expect(neutralizeComment("<details><summary>Patch (+1 −0)</summary>\n\n</details>")).toBe(
      "<details><summary>Patch (+1 −0)</summary>\n\n</details>",
    );
    expect(neutralizeComment('<!-- hidden --><a href="https://evil.example">x</a>')).toBe(
      '&lt;!-- hidden -->&lt;a href="`https://evil.example`">x&lt;/a>',
    );
  });

  test("code spans and fenced blocks are left exactly as they are", () => {
    const text = [
      "`@someone fixes #1 https://evil.example`",
      "````diff",
      "+@someone fixes #1 <img src=x> https://evil.example",
      "```",
      "+still inside",
      "````",
      "after @x",
    ].join("\n");
    const out = neutralizeComment(text).split("\n");
    expect(out.slice(0, 6)).toEqual(text.split("\n").slice(0, 6));
    expect(out[6]).toBe(`after @${ZWSP}x`);
  });

  test("protocol-relative images, links and reference definitions (//host, /\\host) are foreign links", () => {
    const out = neutralizeComment(
      [
        "![p](//evil.example/p.png) [x](//evil.example/x) ![q](/\\evil.example/q.png) [y](\\\\evil.example/y)",
        '![t](<//evil.example/a b.png> "title") [u](//evil.example/u (paren title))',
        "[ref]: //evil.example/ref",
        '  [ref2]: <//evil.example/r2> "t"',
        "![used][ref] [ok](//github.com/o/r/pull/1) [rel](/docs/x.md) [up](../x.md)",
        "[gh]: //github.com/o/r",
      ].join("\n"),
    );
    expect(out.split("\n")).toEqual([
      "[image from evil.example removed] x (link to evil.example removed) [image from evil.example removed] y (link to evil.example removed)",
      "[image from evil.example removed] u (link to evil.example removed)",
      "[ref]: `//evil.example/ref`",
      '  [ref2]: `//evil.example/r2` "t"',
      "![used][ref] [ok](//github.com/o/r/pull/1) [rel](/docs/x.md) [up](../x.md)",
      "[gh]: //github.com/o/r",
    ]);
  });

  test("escaped backticks open no code span: an image between them is removed", () => {
    const text = "\\`![p](https://evil.example/p.png)\\` and \\\\`@kept`";
    expect(neutralizeComment(text)).toBe("\\`[image from evil.example removed]\\` and \\\\`@kept`");
  });

  test("allowed hosts: github.com and its subdomains, plus the extra ones", () => {
    expect(isAllowedHost("github.com")).toBe(true);
    expect(isAllowedHost("user-images.github.com")).toBe(true);
    expect(isAllowedHost("github.com.evil.example")).toBe(false);
    expect(isAllowedHost("notgithub.com")).toBe(false);
    expect(isAllowedHost("ghe.corp.example", ["ghe.corp.example"])).toBe(true);
  });
});

describe("a patch that held a secret", () => {
  const summary = [
    "### Done: t",
    "",
    "<details><summary>Patch (+1 −0)</summary>",
    "",
    "```diff",
    "+***",
    "```",
    "</details>",
    "",
    "#### Usage",
  ].join("\n");

  test("is replaced by the notice; the rest of the summary stays", () => {
    expect(withholdPatch(summary)).toBe(
      ["### Done: t", "", PATCH_WITHHELD_NOTICE, "", "#### Usage"].join("\n"),
    );
  });

  test("a summary without a patch block gets the notice appended", () => {
    expect(withholdPatch("### Done: t\n")).toBe(`### Done: t\n\n${PATCH_WITHHELD_NOTICE}\n`);
  });
});
