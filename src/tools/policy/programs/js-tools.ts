/**
 * JavaScript linters, formatters and compilers: eslint, prettier, biome, stylelint, tsc. Risky: options that load a module or a configuration file (code, for
 * `.js`/`.mjs` ones: `-c`, `--config`, `--plugin`, `--rulesdir`, a formatter or reporter that is
 * not built in, `--resolve-plugins-relative-to`, `--require`), and options that write wherever
 * they name (`--output-file`, `--cache-location`, `--outDir`). The files a fixing run rewrites
 * (`eslint --fix`, `prettier --write`) are judged as written paths. Test runners are in
 * test-runners.ts.
 */
import { type OptionTable, scanOptions } from "../options.ts";
import { emptyAnalysis } from "../types.ts";
import type { ProgramAnalyzer } from "./program.ts";

export const CONFIG = "loads the configuration file it names, which can be code (`.js`, `.mjs`)";
export const MODULE = "loads the module it names, which can be any code";
const WRITES = "writes to the file it names, wherever it is";

export interface JsTool {
  table: OptionTable;
  /** Options with which the operands are files it rewrites. */
  fixes?: readonly string[];
}

const TOOLS: Record<string, JsTool> = {
  eslint: {
    table: {
      program: "eslint",
      values: [
        "c",
        "config",
        "ext",
        "global",
        "parser",
        "parser-options",
        "plugin",
        "rule",
        "fix-type",
        "ignore-pattern",
        "stdin-filename",
        "max-warnings",
        "o",
        "output-file",
        "f",
        "format",
        "report-unused-disable-directives-severity",
        "report-unused-inline-configs",
        "cache-file",
        "cache-location",
        "cache-strategy",
        "suppress-rule",
        "suppressions-location",
        "print-config",
        "flag",
        "concurrency",
        "rulesdir",
        "resolve-plugins-relative-to",
        "env",
        "ignore-path",
      ],
      risky: {
        c: CONFIG,
        config: CONFIG,
        plugin: MODULE,
        parser: MODULE,
        rulesdir: "loads every rule module in the folder it names",
        "resolve-plugins-relative-to": "loads plugins from the folder it names",
        f: "loads the formatter module it names (only stylish, json, json-with-metadata and html are built in)",
        format:
          "loads the formatter module it names (only stylish, json, json-with-metadata and html are built in)",
        o: WRITES,
        "output-file": WRITES,
        "cache-file": WRITES,
        "cache-location": WRITES,
        "suppressions-location": WRITES,
        init: "downloads and runs a configuration initializer",
        "inspect-config": "downloads and runs the configuration inspector",
      },
      safeValues: {
        f: ["stylish", "json", "json-with-metadata", "html"],
        format: ["stylish", "json", "json-with-metadata", "html"],
      },
    },
    fixes: ["fix"],
  },
  prettier: {
    table: {
      program: "prettier",
      values: [
        "config",
        "ignore-path",
        "plugin",
        "cache-location",
        "cache-strategy",
        "log-level",
        "stdin-filepath",
        "config-precedence",
        "parser",
        "tab-width",
        "print-width",
        "trailing-comma",
        "end-of-line",
        "arrow-parens",
        "quote-props",
        "prose-wrap",
      ],
      risky: { config: CONFIG, plugin: MODULE, "cache-location": WRITES, parser: MODULE },
      safeValues: {
        parser:
          "babel babel-flow babel-ts flow typescript espree meriyah acorn css less scss json json5 jsonc json-stringify graphql markdown mdx vue yaml glimmer html angular lwc".split(
            " ",
          ),
      },
    },
    fixes: ["write", "w"],
  },
  biome: {
    table: {
      program: "biome",
      values: ["config-path", "log-file", "log-path", "reporter-file"],
      risky: {
        "log-file": WRITES,
        "log-path": "writes its logs into the folder it names",
        "reporter-file": WRITES,
      },
    },
    fixes: ["write", "fix", "apply", "apply-unsafe"],
  },
  stylelint: {
    table: {
      program: "stylelint",
      values: [
        "c",
        "config",
        "config-basedir",
        "custom-syntax",
        "custom-formatter",
        "f",
        "formatter",
        "o",
        "output-file",
        "cache-location",
      ],
      risky: {
        c: CONFIG,
        config: CONFIG,
        "config-basedir": "loads configuration modules from the folder it names",
        "custom-syntax": MODULE,
        "custom-formatter": MODULE,
        f: "loads the formatter module it names unless it is built in",
        formatter: "loads the formatter module it names unless it is built in",
        o: WRITES,
        "output-file": WRITES,
        "cache-location": WRITES,
      },
      safeValues: {
        f: ["compact", "github", "json", "string", "tap", "unix", "verbose"],
        formatter: ["compact", "github", "json", "string", "tap", "unix", "verbose"],
      },
    },
    fixes: ["fix"],
  },
  tsc: {
    table: {
      program: "tsc",
      singleDashLong: true,
      normalize: (name) => name.toLowerCase(),
      values: [
        "outdir",
        "outfile",
        "out",
        "declarationdir",
        "tsbuildinfofile",
        "generatetrace",
        "generatecpuprofile",
      ],
      risky: {
        outdir: "writes the output into the folder it names, wherever it is",
        outfile: WRITES,
        out: WRITES,
        declarationdir: "writes declarations into the folder it names, wherever it is",
        tsbuildinfofile: WRITES,
        generatetrace: "writes a trace into the folder it names",
        generatecpuprofile: WRITES,
      },
    },
  },
};

// eslint_d is eslint kept running in the background: the same options.
TOOLS.eslint_d = TOOLS.eslint!;

export const JS_TOOLS = Object.keys(TOOLS);

export const analyzeJsTool = toolAnalyzer(TOOLS);

/** An analyzer over a table of tools: their risky options, and the files a fixing run rewrites. */
export function toolAnalyzer(tools: Record<string, JsTool>): ProgramAnalyzer {
  return ({ call, name }) => {
    const analysis = emptyAnalysis();
    const tool = tools[name];
    if (!tool) return analysis;
    const scan = scanOptions(call.words, 1, tool.table);
    analysis.risks.push(...scan.risks);
    const fix = scan.options.find((option) => tool.fixes?.includes(option.name));
    if (fix)
      for (const operand of scan.operands)
        analysis.writes.push({ word: operand, by: `\`${name} ${fix.word.text}\`` });
    return analysis;
  };
}
