Object.defineProperty(exports,Symbol.toStringTag,{value:`Module`});const e=require("./chunks/suggest-CsEDJFxT.cjs"),t=require("./chunks/version-CfUi3iAV.cjs"),n=require("./chunks/errors-CZrId0hq.cjs");let r=require("node:util");var i=class extends n.t{constructor(e){super(`usage`,`usage`,e),this.name=`UsageError`}};const a=`agent-run: run an LLM coding agent headless, from a YAML task spec.

Usage:
  agent-run <task.yml> [options]     run the task
  agent-run validate <task.yml> [options]
                                     check the spec (with the options but --record and --json) and
                                     show the effective configuration; calls no model; with --mcp,
                                     also start its MCP servers and list their tools
  agent-run schema                   print the task spec's JSON Schema
  agent-run --help | --version

Options:
  --model P:ID        model to use, e.g. ${e.o} (overrides the spec)
  --prompt TEXT       the task's prompt (overrides the spec)
  --var K=V           set {{ vars.K }} (repeatable)
  --cwd DIR           workspace root (overrides the spec's workdir)
  --out DIR           output folder (overrides outputs.dir)
  --replay FILE       play a recorded or scripted session instead of calling a model
  --record FILE       record the live session to FILE (replayable)
  --resume DIR        continue the run whose outputs are in DIR: its patch is applied first
                      unless the workspace holds it, its conversation goes on (--prompt: a follow-up)
  --json              print the events as JSON lines on stdout
  --max-turns N       stop after N turns
  --max-cost USD      stop before a turn would exceed this cost
  --timeout DUR       stop the whole run after DUR (e.g. 90s, 20m)

Exit codes:
  0 done \u00B7 1 the task failed (before_stop checks still failing) \u00B7 2 usage or spec error
  3 a limit stopped it \u00B7 4 infrastructure error (provider, auth, crash) \u00B7 130/143 SIGINT/SIGTERM

Examples:
  agent-run examples/lint-fix/task.yml --replay examples/lint-fix/session.yml
  agent-run task.yml --model ${e.s} --var extra="only src/" --max-cost 0.50
  agent-run task.yml --resume previous-run/ --max-turns 20
  agent-run validate task.yml
`;function o(e){let{values:t,positionals:n}=c(e);if(t.help)return{kind:`help`};if(t.version)return{kind:`version`};let r=g(f(t.var)),[a,o,...s]=n;if(a===`schema`){if(o!==void 0)throw new i(`'schema' takes no arguments`);return{kind:`schema`}}let l=e=>d(t[e]),u={...p(`model`,l(`model`)),...p(`prompt`,l(`prompt`)),...p(`cwd`,h(`--cwd`,l(`cwd`))),...p(`out`,h(`--out`,l(`out`))),...p(`replay`,h(`--replay`,l(`replay`))),...p(`maxTurns`,m(l(`max-turns`),e=>_(`--max-turns`,e))),...p(`maxCostUsd`,m(l(`max-cost`),e=>v(`--max-cost`,e))),...p(`timeoutMs`,m(l(`timeout`),y))};if(a===`validate`){if(!o)throw new i(`'validate' needs a task file: agent-run validate <task.yml>`);if(s.length>0)throw new i(`unexpected argument '${s[0]}'`);for(let e of[`record`,`resume`,`json`])if(t[e]!==void 0)throw new i(`'validate' runs nothing, so --${e} does not apply to it`);return{kind:`validate`,taskFile:o,vars:r,mcp:t.mcp===!0,...u}}if(t.mcp)throw new i(`--mcp is an option of 'agent-run validate'`);if(!a)throw new i(`missing the task file: agent-run <task.yml>`);if(o!==void 0)throw new i(`unexpected argument '${o}'`);return{kind:`run`,taskFile:a,vars:r,json:t.json===!0,...u,...p(`record`,h(`--record`,l(`record`))),...p(`resume`,h(`--resume`,l(`resume`)))}}const s={help:{type:`boolean`,short:`h`},version:{type:`boolean`,short:`v`},model:{type:`string`},prompt:{type:`string`},var:{type:`string`,multiple:!0},cwd:{type:`string`},out:{type:`string`},replay:{type:`string`},record:{type:`string`},resume:{type:`string`},json:{type:`boolean`},mcp:{type:`boolean`},"max-turns":{type:`string`},"max-cost":{type:`string`},timeout:{type:`string`}};function c(t){let n=[];for(let e=0;e<t.length;e++){let r=t[e],i=t[e+1];if(r===`--`){n.push(...t.slice(e));break}let a=/^--([a-z-]+)$/.exec(r)?.[1];a&&l(a)&&i!==void 0&&/^-\.?\d/.test(i)?(n.push(`${r}=${i}`),e++):n.push(r)}let{values:a,positionals:o,tokens:c}=(0,r.parseArgs)({args:n,allowPositionals:!0,strict:!1,tokens:!0,options:s}),d=new Map;for(let t of c){if(t.kind!==`option`)continue;let n=t.name;if(!Object.hasOwn(s,n)){let n=Object.keys(s).map(e=>`--${e}`),r=e.t(t.rawName,n);throw new i(`unknown option '${t.rawName}'${r?` \u2014 did you mean '${r}'?`:``}`)}let r=s[n];if(r.type===`string`&&t.value===void 0)throw new i(`${t.rawName} needs a value: ${t.rawName} ${u(n)}`);if(r.type===`boolean`&&t.value!==void 0)throw new i(`${t.rawName} takes no value, got '${t.value}'`);if(r.type===`string`&&!(`multiple`in r)){let e=d.get(n);if(e!==void 0&&e!==t.value)throw new i(`--${n} is given twice ('${e}' and '${t.value}'); give it once`);d.set(n,t.value??``)}}return{values:a,positionals:o}}function l(e){return Object.hasOwn(s,e)&&s[e].type===`string`}function u(e){return{model:`P:ID`,prompt:`TEXT`,var:`K=V`,cwd:`DIR`,out:`DIR`,replay:`FILE`,record:`FILE`,"max-turns":`N`,"max-cost":`USD`,timeout:`DUR`}[e]??`VALUE`}function d(e){return typeof e==`string`?e:void 0}function f(e){return Array.isArray(e)?e.filter(e=>typeof e==`string`):[]}function p(e,t){return t===void 0?{}:{[e]:t}}function m(e,t){return e===void 0?void 0:t(e)}function h(e,t){if(t!==void 0&&t.trim()===``)throw new i(`${e} needs a value, got an empty one`);return t}function g(e){let t=Object.create(null);for(let n of e){let e=n.indexOf(`=`);if(e<=0)throw new i(`--var expects K=V, got '${n}'`);t[n.slice(0,e)]=n.slice(e+1)}return t}function _(e,t){let n=Number(t);if(!/^\d+$/.test(t)||!Number.isSafeInteger(n)||n<=0)throw new i(`${e} expects a positive whole number, got '${t}'`);return n}function v(e,t){let n=Number(t);if(!/^\d+(\.\d+)?$|^\.\d+$/.test(t)||!Number.isFinite(n)||n<=0)throw new i(`${e} expects a positive number, got '${t}'`);return n}function y(t){let n=e.i(/^\d+(\.\d+)?$/.test(t)?Number(t):t);if(n===void 0||!Number.isFinite(n)){let n=e.a(t);throw new i(`--timeout expects a duration like 90s or 20m, got '${t}'${n?` \u2014 did you mean '${n}'?`:``}`)}return n}async function b(e){let r;try{r=o(e)}catch(e){if(e instanceof i)return process.stderr.write(`agent-run: ${e.message}\nRun 'agent-run --help' for usage.\n`),n.n.usage;throw e}switch(r.kind){case`help`:return process.stdout.write(a),n.n.success;case`version`:return process.stdout.write(`${t.t}\n`),n.n.success;case`schema`:{let{taskJsonSchema:e}=await Promise.resolve().then(()=>require("./chunks/spec-un0pJjpe.cjs")).then(e=>e.t);return process.stdout.write(`${JSON.stringify(e(),null,2)}\n`),n.n.success}case`validate`:{let{validateCommand:e}=await Promise.resolve().then(()=>require("./chunks/validate-iYNegOPc.cjs"));return e(r)}case`run`:{let{runCommand:e}=await Promise.resolve().then(()=>require("./chunks/run-DEBOHEB7.cjs"));return e(r)}}}exports.main=b;