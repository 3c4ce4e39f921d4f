const e=require("./rolldown-runtime-gSa7heC-.cjs"),t=require("./which-D1ydHmPA.cjs");let n=require("node:crypto"),r=require("node:fs/promises"),i=require("node:child_process"),a=require("node:os");a=e.r(a,1);const o=`AGENTRUN_OWNER`;let s,c=!1;const l=`${process.pid}-${(0,n.randomBytes)(8).toString(`hex`)}`;let u=!1;function d(){return u||f(`m`),u=!0,{[o]:l}}function f(e){c||p();let t=s?.stdin;t&&!t.destroyed&&t.write(`${e}\n`)}function p(){c=!0;try{let e=(0,i.spawn)(t.t(`sh`),[`-c`,`
marker="$1"; groups=""; dirs=""; cgroups=""; marked=""
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
    "m") marked=1 ;;
  esac
done
for g in $groups; do kill -KILL "-$g" 2>/dev/null; done
printf '%s' "$cgroups" | while IFS= read -r c; do
  [ -d "$c" ] || continue
  [ -e "$c/cgroup.kill" ] && echo 1 > "$c/cgroup.kill" 2>/dev/null
  n=0
  while [ $n -lt 250 ] && ! rmdir "$c" 2>/dev/null && [ -d "$c" ]; do
    for p in $(cat "$c/cgroup.procs" 2>/dev/null); do kill -KILL "$p" 2>/dev/null; done
    sleep 0.02 2>/dev/null || sleep 1; n=$((n + 1))
  done
done
if [ -n "$marked" ]; then
  for f in $(grep -l -s -a -F -e "$marker" /proc/[0-9]*/environ 2>/dev/null); do
    p="\${f#/proc/}"; p="\${p%/environ}"; [ "$p" = "$$" ] || kill -KILL "$p" 2>/dev/null
  done
fi
printf '%s' "$dirs" | while IFS= read -r d; do
  if [ -n "$d" ] && { [ -e "$d" ] || [ -L "$d" ]; }; then rm -rf -- "$d"; fi
done
`,`agent-run-reaper`,`${o}=${l}`],{detached:!0,stdio:[`pipe`,`ignore`,`ignore`]});if(e.on(`error`,()=>{s=void 0}),e.stdin?.on(`error`,()=>{}),e.unref(),e.stdin?.unref(),e.pid!==void 0)try{a.default.setPriority(e.pid,19)}catch{}s=e}catch{s=void 0}}function m(e){return f(`g ${e}`),()=>f(`u ${e}`)}function h(e){e.includes(`
`)||f(`d ${e}`)}function g(e){return _(`r`,e)}function _(e,t){if(t.includes(`
`))return!1;f(`${e} ${t}`);let n=s?.stdin;return n!=null&&!n.destroyed}function v(e){return _(`s`,e)}function y(e){e.includes(`
`)||f(`c ${e}`)}async function b(e){if(!u)return[];let t=Buffer.from(`${o}=${l}\0`),n=(await(0,r.readdir)(`/proc`).catch(()=>[])).map(Number).filter(e=>Number.isInteger(e)&&e>0&&e!==process.pid),i=await Promise.all(n.map(async e=>(await(0,r.readFile)(`/proc/${e}/environ`).catch(()=>void 0))?.includes(t)?e:void 0)),a=[];for(let t of i){if(t===void 0)continue;let n=await(0,r.readFile)(`/proc/${t}/stat`,`utf8`).catch(()=>``),i=Number(n.slice(n.lastIndexOf(`)`)+2).split(` `)[2]);if(!e.has(i))try{process.kill(t,`SIGKILL`),a.push(t)}catch{}}return a}Object.defineProperty(exports,"a",{enumerable:!0,get:function(){return y}}),Object.defineProperty(exports,"i",{enumerable:!0,get:function(){return v}}),Object.defineProperty(exports,"n",{enumerable:!0,get:function(){return d}}),Object.defineProperty(exports,"o",{enumerable:!0,get:function(){return m}}),Object.defineProperty(exports,"r",{enumerable:!0,get:function(){return g}}),Object.defineProperty(exports,"s",{enumerable:!0,get:function(){return h}}),Object.defineProperty(exports,"t",{enumerable:!0,get:function(){return b}});