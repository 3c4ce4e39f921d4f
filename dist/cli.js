#!/usr/bin/env node
import{t as e}from"./chunks/types-u8rqx2vT.js";import{n as t}from"./chunks/duration-DlVT0rn3.js";import{parseArgs as n}from"node:util";var r=class extends Error{code=`usage`};function i(e){let t;try{t=a(e)}catch(e){throw new r(e instanceof Error?e.message:String(e))}let{values:n,positionals:i}=t;if(n.help)return{kind:`help`};if(n.version)return{kind:`version`};let u=o(n.var??[]),[d,f,...p]=i;if(d===`schema`){if(f!==void 0)throw new r(`'schema' takes no arguments`);return{kind:`schema`}}if(d===`validate`){if(!f)throw new r(`'validate' needs a task file: agent-run validate <task.yml>`);if(p.length>0)throw new r(`unexpected argument '${p[0]}'`);return{kind:`validate`,taskFile:f,vars:u}}if(!d)throw new r(`missing the task file: agent-run <task.yml>`);if(f!==void 0)throw new r(`unexpected argument '${f}'`);return{kind:`run`,taskFile:d,vars:u,json:n.json??!1,...n.model!==void 0&&{model:n.model},...n.prompt!==void 0&&{prompt:n.prompt},...n.cwd!==void 0&&{cwd:n.cwd},...n.out!==void 0&&{out:n.out},...n.replay!==void 0&&{replay:n.replay},...n.record!==void 0&&{record:n.record},...n[`max-turns`]!==void 0&&{maxTurns:s(`--max-turns`,n[`max-turns`])},...n[`max-cost`]!==void 0&&{maxCostUsd:c(`--max-cost`,n[`max-cost`])},...n.timeout!==void 0&&{timeoutMs:l(n.timeout)}}}function a(e){return n({args:e,allowPositionals:!0,strict:!0,options:{help:{type:`boolean`,short:`h`},version:{type:`boolean`,short:`v`},model:{type:`string`},prompt:{type:`string`},var:{type:`string`,multiple:!0},cwd:{type:`string`},out:{type:`string`},replay:{type:`string`},record:{type:`string`},json:{type:`boolean`},"max-turns":{type:`string`},"max-cost":{type:`string`},timeout:{type:`string`}}})}function o(e){let t={};for(let n of e){let e=n.indexOf(`=`);if(e<=0)throw new r(`--var expects K=V, got '${n}'`);t[n.slice(0,e)]=n.slice(e+1)}return t}function s(e,t){let n=Number(t);if(!Number.isInteger(n)||n<=0)throw new r(`${e} expects a positive whole number, got '${t}'`);return n}function c(e,t){let n=Number(t);if(!Number.isFinite(n)||n<=0)throw new r(`${e} expects a positive number, got '${t}'`);return n}function l(e){let n=t(/^\d+(\.\d+)?$/.test(e)?Number(e):e);if(n===void 0)throw new r(`--timeout expects a duration like 90s or 20m, got '${e}'`);return n}async function u(t){let n;try{n=i(t)}catch(t){if(t instanceof r)return process.stderr.write(`agent-run: ${t.message}\nRun 'agent-run --help' for usage.\n`),e.usage;throw t}switch(n.kind){case`help`:return process.stdout.write(`agent-run: run an LLM coding agent headless, from a YAML task spec.

Usage:
  agent-run <task.yml> [options]     run the task
  agent-run validate <task.yml>      check the spec and show the effective configuration (no model call)
  agent-run schema                   print the task spec's JSON Schema
  agent-run --help | --version

Options:
  --model P:ID        model to use, e.g. anthropic:claude-sonnet-4-5 (overrides the spec)
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
  agent-run task.yml --model openai:gpt-5-mini --var extra="only src/" --max-cost 0.50
  agent-run validate task.yml
`),e.success;case`version`:return process.stdout.write(`0.1.0
`),e.success;case`schema`:{let{taskJsonSchema:t}=await import(`./chunks/spec-BLmSI7Ug.js`);return process.stdout.write(`${JSON.stringify(t(),null,2)}\n`),e.success}case`validate`:{let{validateCommand:e}=await import(`./chunks/validate-kxg45IZB.js`);return e(n.taskFile,n.vars)}case`run`:{let{runCommand:e}=await import(`./chunks/run-CfRIOkFy.js`);return e(n)}}}u(process.argv.slice(2)).then(e=>{process.exitCode=e},e=>{process.stderr.write(`agent-run: internal error: ${e instanceof Error?e.stack??e.message:String(e)}\n`),process.exitCode=4});export{};