import"./types-DZ3eSRxR.js";import{t as e}from"./version-CPunTYCY.js";import{n as t,t as n}from"./errors-DMu38hMl.js";import{n as r,t as i}from"./model-ref-M0OQJFvK.js";import{i as a,r as o}from"./duration-BHclPShl.js";import{t as s}from"./suggest-nbiFa4Sw.js";import{parseArgs as c}from"node:util";var l=class extends n{constructor(e){super(`usage`,`usage`,e),this.name=`UsageError`}};const u=`agent-run: run an LLM coding agent headless, from a YAML task spec.

Usage:
  agent-run <task.yml> [options]     run the task
  agent-run validate <task.yml> [options]
                                     check the spec (with the options but --record and --json) and
                                     show the effective configuration; calls no model; with --mcp,
                                     also start its MCP servers and list their tools
  agent-run schema                   print the task spec's JSON Schema
  agent-run --help | --version

Options:
  --model P:ID        model to use, e.g. ${i} (overrides the spec)
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
  agent-run task.yml --model ${r} --var extra="only src/" --max-cost 0.50
  agent-run task.yml --resume previous-run/ --max-turns 20
  agent-run validate task.yml
`;function d(e){let{values:t,positionals:n}=p(e);if(t.help)return{kind:`help`};if(t.version)return{kind:`version`};let r=x(_(t.var)),[i,a,...o]=n;if(i===`schema`){if(a!==void 0)throw new l(`'schema' takes no arguments`);return{kind:`schema`}}let s=e=>g(t[e]),c={...v(`model`,s(`model`)),...v(`prompt`,s(`prompt`)),...v(`cwd`,b(`--cwd`,s(`cwd`))),...v(`out`,b(`--out`,s(`out`))),...v(`replay`,b(`--replay`,s(`replay`))),...v(`maxTurns`,y(s(`max-turns`),e=>S(`--max-turns`,e))),...v(`maxCostUsd`,y(s(`max-cost`),e=>C(`--max-cost`,e))),...v(`timeoutMs`,y(s(`timeout`),w))};if(i===`validate`){if(!a)throw new l(`'validate' needs a task file: agent-run validate <task.yml>`);if(o.length>0)throw new l(`unexpected argument '${o[0]}'`);for(let e of[`record`,`resume`,`json`])if(t[e]!==void 0)throw new l(`'validate' runs nothing, so --${e} does not apply to it`);return{kind:`validate`,taskFile:a,vars:r,mcp:t.mcp===!0,...c}}if(t.mcp)throw new l(`--mcp is an option of 'agent-run validate'`);if(!i)throw new l(`missing the task file: agent-run <task.yml>`);if(a!==void 0)throw new l(`unexpected argument '${a}'`);return{kind:`run`,taskFile:i,vars:r,json:t.json===!0,...c,...v(`record`,b(`--record`,s(`record`))),...v(`resume`,b(`--resume`,s(`resume`)))}}const f={help:{type:`boolean`,short:`h`},version:{type:`boolean`,short:`v`},model:{type:`string`},prompt:{type:`string`},var:{type:`string`,multiple:!0},cwd:{type:`string`},out:{type:`string`},replay:{type:`string`},record:{type:`string`},resume:{type:`string`},json:{type:`boolean`},mcp:{type:`boolean`},"max-turns":{type:`string`},"max-cost":{type:`string`},timeout:{type:`string`}};function p(e){let t=[];for(let n=0;n<e.length;n++){let r=e[n],i=e[n+1];if(r===`--`){t.push(...e.slice(n));break}let a=/^--([a-z-]+)$/.exec(r)?.[1];a&&m(a)&&i!==void 0&&/^-\.?\d/.test(i)?(t.push(`${r}=${i}`),n++):t.push(r)}let{values:n,positionals:r,tokens:i}=c({args:t,allowPositionals:!0,strict:!1,tokens:!0,options:f}),a=new Map;for(let e of i){if(e.kind!==`option`)continue;let t=e.name;if(!Object.hasOwn(f,t)){let t=Object.keys(f).map(e=>`--${e}`),n=s(e.rawName,t);throw new l(`unknown option '${e.rawName}'${n?` \u2014 did you mean '${n}'?`:``}`)}let n=f[t];if(n.type===`string`&&e.value===void 0)throw new l(`${e.rawName} needs a value: ${e.rawName} ${h(t)}`);if(n.type===`boolean`&&e.value!==void 0)throw new l(`${e.rawName} takes no value, got '${e.value}'`);if(n.type===`string`&&!(`multiple`in n)){let n=a.get(t);if(n!==void 0&&n!==e.value)throw new l(`--${t} is given twice ('${n}' and '${e.value}'); give it once`);a.set(t,e.value??``)}}return{values:n,positionals:r}}function m(e){return Object.hasOwn(f,e)&&f[e].type===`string`}function h(e){return{model:`P:ID`,prompt:`TEXT`,var:`K=V`,cwd:`DIR`,out:`DIR`,replay:`FILE`,record:`FILE`,"max-turns":`N`,"max-cost":`USD`,timeout:`DUR`}[e]??`VALUE`}function g(e){return typeof e==`string`?e:void 0}function _(e){return Array.isArray(e)?e.filter(e=>typeof e==`string`):[]}function v(e,t){return t===void 0?{}:{[e]:t}}function y(e,t){return e===void 0?void 0:t(e)}function b(e,t){if(t!==void 0&&t.trim()===``)throw new l(`${e} needs a value, got an empty one`);return t}function x(e){let t=Object.create(null);for(let n of e){let e=n.indexOf(`=`);if(e<=0)throw new l(`--var expects K=V, got '${n}'`);t[n.slice(0,e)]=n.slice(e+1)}return t}function S(e,t){let n=Number(t);if(!/^\d+$/.test(t)||!Number.isSafeInteger(n)||n<=0)throw new l(`${e} expects a positive whole number, got '${t}'`);return n}function C(e,t){let n=Number(t);if(!/^\d+(\.\d+)?$|^\.\d+$/.test(t)||!Number.isFinite(n)||n<=0)throw new l(`${e} expects a positive number, got '${t}'`);return n}function w(e){let t=o(/^\d+(\.\d+)?$/.test(e)?Number(e):e);if(t===void 0||!Number.isFinite(t)){let t=a(e);throw new l(`--timeout expects a duration like 90s or 20m, got '${e}'${t?` \u2014 did you mean '${t}'?`:``}`)}return t}async function T(n){let r;try{r=d(n)}catch(e){if(e instanceof l)return process.stderr.write(`agent-run: ${e.message}\nRun 'agent-run --help' for usage.\n`),t.usage;throw e}switch(r.kind){case`help`:return process.stdout.write(u),t.success;case`version`:return process.stdout.write(`${e}\n`),t.success;case`schema`:{let{taskJsonSchema:e}=await import(`./spec-CkNrliil.js`);return process.stdout.write(`${JSON.stringify(e(),null,2)}\n`),t.success}case`validate`:{let{validateCommand:e}=await import(`./validate-DB0GO8FZ.js`);return e(r)}case`run`:{let{runCommand:e}=await import(`./run-D24KckJQ.js`);return e(r)}}}export{T as main};