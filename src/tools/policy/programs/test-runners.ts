/**
 * Test runners: vitest, jest, mocha. vitest and jest take an open set of configuration options
 * (`--coverage.reportsDirectory`, `--testRunner`, `--pool`, `--execArgv`), so only a harmless
 * list of theirs is accepted unnamed; a reporter or environment that is not built in is a module
 * they load. `vitest init` downloads packages. The tests they run are project code the model may
 * be able to edit (docs/tools.md).
 */
import { CONFIG, type JsTool, MODULE, toolAnalyzer } from "./js-tools.ts";
import type { ProgramAnalyzer } from "./program.ts";

const RUNNERS: Record<string, JsTool> = {
  vitest: {
    table: {
      program: "vitest",
      normalize: dottedCamel,
      values: [
        "c",
        "config",
        "r",
        "root",
        "dir",
        "reporter",
        "outputfile",
        "pool",
        "execargv",
        "environment",
        "t",
        "testnamepattern",
        "project",
        "shard",
        "exclude",
        "mode",
      ],
      risky: {
        reporter: "loads the reporter module it names unless it is built in",
        environment: "loads the test environment package it names unless it is built in",
      },
      safeValues: {
        reporter:
          "default basic verbose dot json junit tap tap-flat hanging-process github-actions blob html tree minimal agent".split(
            " ",
          ),
        environment: ["node", "jsdom", "happy-dom", "edge-runtime"],
      },
      onlyHarmless: {
        names:
          "run watch w update u testnamepattern t silent hideskippedtests coverage isolate globals dom fileparallelism maxworkers passwithnotests logheapusage detectasyncleaks allowonly shard changed testtimeout hooktimeout bail retry exclude expandsnapshotdiff disableconsoleintercept typecheck project slowtestthreshold teardowntimeout cache maxconcurrency printconsoletrace includetasklocation color nocolor clearscreen clearcache listtags tagsfilter stricttags version v help h mode".split(
            " ",
          ),
        why: "is not one of the vitest options known to be harmless (others load modules, `--config`, `--pool`, `--execArgv`, or write files, `--outputFile`)",
      },
    },
  },
  jest: {
    table: {
      program: "jest",
      normalize: dottedCamel,
      values: [
        "t",
        "testnamepattern",
        "w",
        "maxworkers",
        "changedsince",
        "testtimeout",
        "shard",
        "seed",
        "selectprojects",
      ],
      onlyHarmless: {
        names:
          "ci watch watchall u updatesnapshot coverage collectcoverage silent verbose t testnamepattern b bail i runinband w maxworkers passwithnotests o onlychanged changedsince listtests json detectopenhandles forceexit cache nocache clearcache colors nostacktrace testpathpattern testpathpatterns testpathignorepatterns findrelatedtests errorondeprecated logheapusage showconfig testtimeout shard randomize seed debug e expand lastcommit usestderr version v help h selectprojects testlocationinresults".split(
            " ",
          ),
        why: "is not one of the jest options known to be harmless (others load modules, `--testRunner`, `--reporters`, `--setupFiles`, or write files, `--outputFile`)",
      },
    },
  },
  mocha: {
    table: {
      program: "mocha",
      values: [
        "r",
        "require",
        "config",
        "package",
        "loader",
        "n",
        "node-option",
        "R",
        "reporter",
        "u",
        "ui",
        "file",
        "extension",
      ],
      risky: {
        r: MODULE,
        require: MODULE,
        config: CONFIG,
        package: "reads its configuration from the package.json it names",
        loader: MODULE,
        n: "passes Node.js options (`--import`, `--require` run any code)",
        "node-option": "passes Node.js options (`--import`, `--require` run any code)",
        R: "loads the reporter module it names unless it is built in",
        reporter: "loads the reporter module it names unless it is built in",
        u: "loads the interface module it names unless it is built in",
        ui: "loads the interface module it names unless it is built in",
      },
      safeValues: {
        R: "spec dot nyan tap landing list progress json json-stream min doc markdown xunit html".split(" "),
        reporter:
          "spec dot nyan tap landing list progress json json-stream min doc markdown xunit html".split(" "),
        u: ["bdd", "tdd", "qunit", "exports"],
        ui: ["bdd", "tdd", "qunit", "exports"],
      },
    },
  },
};

/** cac and yargs read `--output-file`, `--outputFile` and `--outputfile` alike; `--coverage.x` is a group. */
function dottedCamel(name: string): string {
  const flat = name.toLowerCase().replaceAll("-", "");
  const dot = flat.indexOf(".");
  return dot < 0 ? flat : `${flat.slice(0, dot)}.*`;
}

const analyzeTable = toolAnalyzer(RUNNERS);

export const TEST_RUNNERS = Object.keys(RUNNERS);

export const analyzeTestRunner: ProgramAnalyzer = (input) => {
  const analysis = analyzeTable(input);
  const first = input.call.words[1];
  if (input.name === "vitest" && first?.literal && first.text === "init") {
    analysis.risks.push({ word: first, chars: 4, why: "downloads and installs packages" });
  }
  return analysis;
};
