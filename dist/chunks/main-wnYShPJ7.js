import"./types-DZ3eSRxR.js";import{n as e,t}from"./errors-DMu38hMl.js";import{lt as n,r,t as i,ut as a}from"./suggest-B9AkUyFw.js";import{parseArgs as o}from"node:util";var s=class extends t{constructor(e){super(`usage`,`usage`,e),this.name=`UsageError`}};const c=`agent-run: run an LLM coding agent headless, from a YAML task spec.

Usage:
  agent-run <task.yml> [options]     run the task
  agent-run validate <task.yml>      check the spec and show the effective configuration (no model call)
  agent-run schema                   print the task spec's JSON Schema
  agent-run --help | --version

Options:
  --model P:ID        model to use, e.g. ${n} (overrides the spec)
  --prompt TEXT       the task's prompt (overrides the spec)
  --var K=V           set {{ vars.K }} (repeatable)
  --cwd DIR           workspace root (overrides the spec's workdir)
  --out DIR           output folder (overrides outputs.dir)
  --replay FILE       play a recorded or scripted session instead of calling a model
  --record FILE       record the live session to FILE (replayable)
  --json              print the events as JSON lines on stdout
  --max-turns N       stop after N turns
  --max-cost USD      stop before a turn would exceed this cost
  --timeout DUR       stop the whole run after DUR (e.g. 90s, 20m)

Exit codes:
  0 done · 1 the task failed (before_stop checks still failing) · 2 usage or spec error
  3 a limit stopped it · 4 infrastructure error (provider, auth, crash) · 130/143 SIGINT/SIGTERM

Examples:
  agent-run examples/lint-fix/task.yml --replay examples/lint-fix/session.yml
  agent-run task.yml --model ${a} --var extra="only src/" --max-cost 0.50
  agent-run validate task.yml
`;function l(e){let{values:t,positionals:n}=d(e);if(t.help)return{kind:`help`};if(t.version)return{kind:`version`};let r=y(h(t.var)),[i,a,...o]=n;if(i===`schema`){if(a!==void 0)throw new s(`'schema' takes no arguments`);return{kind:`schema`}}if(i===`validate`){if(!a)throw new s(`'validate' needs a task file: agent-run validate <task.yml>`);if(o.length>0)throw new s(`unexpected argument '${o[0]}'`);return{kind:`validate`,taskFile:a,vars:r}}if(!i)throw new s(`missing the task file: agent-run <task.yml>`);if(a!==void 0)throw new s(`unexpected argument '${a}'`);let c=e=>m(t[e]);return{kind:`run`,taskFile:i,vars:r,json:t.json===!0,...g(`model`,c(`model`)),...g(`prompt`,c(`prompt`)),...g(`cwd`,v(`--cwd`,c(`cwd`))),...g(`out`,v(`--out`,c(`out`))),...g(`replay`,v(`--replay`,c(`replay`))),...g(`record`,v(`--record`,c(`record`))),...g(`maxTurns`,_(c(`max-turns`),e=>b(`--max-turns`,e))),...g(`maxCostUsd`,_(c(`max-cost`),e=>x(`--max-cost`,e))),...g(`timeoutMs`,_(c(`timeout`),S))}}const u={help:{type:`boolean`,short:`h`},version:{type:`boolean`,short:`v`},model:{type:`string`},prompt:{type:`string`},var:{type:`string`,multiple:!0},cwd:{type:`string`},out:{type:`string`},replay:{type:`string`},record:{type:`string`},json:{type:`boolean`},"max-turns":{type:`string`},"max-cost":{type:`string`},timeout:{type:`string`}};function d(e){let t=[];for(let n=0;n<e.length;n++){let r=e[n],i=e[n+1];if(r===`--`){t.push(...e.slice(n));break}let a=/^--([a-z-]+)$/.exec(r)?.[1];a&&f(a)&&i!==void 0&&/^-\.?\d/.test(i)?(t.push(`${r}=${i}`),n++):t.push(r)}let{values:n,positionals:r,tokens:a}=o({args:t,allowPositionals:!0,strict:!1,tokens:!0,options:u}),c=new Map;for(let e of a){if(e.kind!==`option`)continue;let t=e.name;if(!Object.hasOwn(u,t)){let t=Object.keys(u).map(e=>`--${e}`),n=i(e.rawName,t);throw new s(`unknown option '${e.rawName}'${n?` — did you mean '${n}'?`:``}`)}let n=u[t];if(n.type===`string`&&e.value===void 0)throw new s(`${e.rawName} needs a value: ${e.rawName} ${p(t)}`);if(n.type===`boolean`&&e.value!==void 0)throw new s(`${e.rawName} takes no value, got '${e.value}'`);if(n.type===`string`&&!(`multiple`in n)){let n=c.get(t);if(n!==void 0&&n!==e.value)throw new s(`--${t} is given twice ('${n}' and '${e.value}'); give it once`);c.set(t,e.value??``)}}return{values:n,positionals:r}}function f(e){return Object.hasOwn(u,e)&&u[e].type===`string`}function p(e){return{model:`P:ID`,prompt:`TEXT`,var:`K=V`,cwd:`DIR`,out:`DIR`,replay:`FILE`,record:`FILE`,"max-turns":`N`,"max-cost":`USD`,timeout:`DUR`}[e]??`VALUE`}function m(e){return typeof e==`string`?e:void 0}function h(e){return Array.isArray(e)?e.filter(e=>typeof e==`string`):[]}function g(e,t){return t===void 0?{}:{[e]:t}}function _(e,t){return e===void 0?void 0:t(e)}function v(e,t){if(t!==void 0&&t.trim()===``)throw new s(`${e} needs a value, got an empty one`);return t}function y(e){let t=Object.create(null);for(let n of e){let e=n.indexOf(`=`);if(e<=0)throw new s(`--var expects K=V, got '${n}'`);t[n.slice(0,e)]=n.slice(e+1)}return t}function b(e,t){let n=Number(t);if(!/^\d+$/.test(t)||!Number.isSafeInteger(n)||n<=0)throw new s(`${e} expects a positive whole number, got '${t}'`);return n}function x(e,t){let n=Number(t);if(!/^\d+(\.\d+)?$|^\.\d+$/.test(t)||!Number.isFinite(n)||n<=0)throw new s(`${e} expects a positive number, got '${t}'`);return n}function S(e){let t=r(/^\d+(\.\d+)?$/.test(e)?Number(e):e);if(t===void 0||!Number.isFinite(t))throw new s(`--timeout expects a duration like 90s or 20m, got '${e}'`);return t}async function C(t){let n;try{n=l(t)}catch(t){if(t instanceof s)return process.stderr.write(`agent-run: ${t.message}\nRun 'agent-run --help' for usage.\n`),e.usage;throw t}switch(n.kind){case`help`:return process.stdout.write(c),e.success;case`version`:return process.stdout.write(`0.1.0
`),e.success;case`schema`:{let{taskJsonSchema:t}=await import(`./spec-8kxesuPj.js`);return process.stdout.write(`${JSON.stringify(t(),null,2)}\n`),e.success}case`validate`:{let{validateCommand:e}=await import(`./validate-ClJBjzc9.js`);return e(n.taskFile,n.vars)}case`run`:{let{runCommand:e}=await import(`./run-DS5mNb4w.js`);return e(n)}}}export{C as main};