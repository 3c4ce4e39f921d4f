import{t as e}from"./which-BNSu9X4v.js";import{randomBytes as t}from"node:crypto";import{spawn as n}from"node:child_process";import{readFile as r,readdir as i}from"node:fs/promises";const a=`AGENTRUN_OWNER`;let o,s=!1;const c=`${process.pid}-${t(8).toString(`hex`)}`;let l=!1;function u(){return l=!0,{[a]:c}}function d(e){s||f();let t=o?.stdin;t&&!t.destroyed&&t.write(`${e}\n`)}function f(){s=!0;try{let t=n(e(`sh`),[`-c`,`
marker="$1"; groups=""; dirs=""; cgroups=""
alive() {
  if [ -d /proc/self ]; then [ -d "/proc/$1" ]; else ps -p "$1" >/dev/null 2>&1; fi
}
sweep() {
  for d in "$1"/agent-run-pid[0-9]*-*-??????; do
    n="\${d##*/}"; p="\${n#agent-run-pid}"; p="\${p%%-*}"; rest="\${n#agent-run-pid$p-}"
    purpose="\${rest%-*}"; suffix="\${rest##*-}"
    case "$p" in ""|*[!0-9]*) continue ;; esac
    case "$purpose" in ""|*[!a-z-]*) continue ;; esac
    case "$suffix" in *[!A-Za-z0-9]*) continue ;; esac
    [ "\${#suffix}" -eq 6 ] && [ "$p" != "$PPID" ] && ! alive "$p" && rm -rf -- "$d"
  done
}
while IFS= read -r line; do
  case "$line" in
    "g "*) groups="$groups \${line#g }" ;;
    "u "*) kept=""; for g in $groups; do [ "$g" = "\${line#u }" ] || kept="$kept $g"; done; groups="$kept" ;;
    "d "*) dirs="$dirs\${line#d }
" ;;
    "r "*) rm -rf -- "\${line#r }" & ;;
    "c "*) cgroups="$cgroups\${line#c }
" ;;
    "s "*) sweep "\${line#s }" & ;;
  esac
done
for g in $groups; do kill -KILL -- "-$g" 2>/dev/null; done
printf '%s' "$cgroups" | while IFS= read -r c; do
  [ -d "$c" ] || continue
  [ -e "$c/cgroup.kill" ] && echo 1 > "$c/cgroup.kill" 2>/dev/null
  n=0
  while [ $n -lt 250 ] && ! rmdir "$c" 2>/dev/null && [ -d "$c" ]; do
    for p in $(cat "$c/cgroup.procs" 2>/dev/null); do kill -KILL "$p" 2>/dev/null; done
    sleep 0.02 2>/dev/null || sleep 1; n=$((n + 1))
  done
done
for f in $(grep -l -s -a -F -e "$marker" /proc/[0-9]*/environ 2>/dev/null); do
  p="\${f#/proc/}"; p="\${p%/environ}"; [ "$p" = "$$" ] || kill -KILL "$p" 2>/dev/null
done
printf '%s' "$dirs" | while IFS= read -r d; do [ -n "$d" ] && rm -rf -- "$d"; done
`,`agent-run-reaper`,`${a}=${c}`],{detached:!0,stdio:[`pipe`,`ignore`,`ignore`]});t.on(`error`,()=>{o=void 0}),t.stdin?.on(`error`,()=>{}),t.unref(),t.stdin?.unref(),o=t}catch{o=void 0}}function p(e){return d(`g ${e}`),()=>d(`u ${e}`)}function m(e){e.includes(`
`)||d(`d ${e}`)}function h(e){return g(`r`,e)}function g(e,t){if(t.includes(`
`))return!1;d(`${e} ${t}`);let n=o?.stdin;return n!=null&&!n.destroyed}function _(e){return g(`s`,e)}function v(e){e.includes(`
`)||d(`c ${e}`)}async function y(e){if(!l)return[];let t=Buffer.from(`${a}=${c}\0`),n=(await i(`/proc`).catch(()=>[])).map(Number).filter(e=>Number.isInteger(e)&&e>0&&e!==process.pid),o=await Promise.all(n.map(async e=>(await r(`/proc/${e}/environ`).catch(()=>void 0))?.includes(t)?e:void 0)),s=[];for(let t of o){if(t===void 0)continue;let n=await r(`/proc/${t}/stat`,`utf8`).catch(()=>``),i=Number(n.slice(n.lastIndexOf(`)`)+2).split(` `)[2]);if(!e.has(i))try{process.kill(t,`SIGKILL`),s.push(t)}catch{}}return s}export{v as a,_ as i,u as n,p as o,h as r,m as s,y as t};