#!/bin/bash
# Persistence: a --restart=always container (and a nohup'd root process) keep writing
# into the direct-mode host folder. After `airlock stop`, and after `airlock rm`, does
# anything still run on the host or keep writing there? Is the gate/FUSE mount gone,
# the state dir removed?
source "$(dirname "$0")/lib.sh"
ensure_tool || setup_error tool
W=$ATK_BASE/ws; mkdir -p $W && (cd $W && git init -q && echo x > f && git add f && git -c user.email=a@b -c user.name=a commit -qm i) || setup_error repo
write_hcl $ATK_BASE/sb.hcl pers1 $W direct
up_sbx $ATK_BASE/sb.hcl pers1 || setup_error up
push_tool pers1 || setup_error push
wait_docker pers1 || setup_error docker
build_atk_image pers1 || setup_error image
ax pers1 docker run -d --restart=always --privileged -v /workspace:/w atk tick /w/tick-container >/dev/null || setup_error "run -d"
ax pers1 sudo bash -c 'nohup setsid /tmp/atk tick /workspace/tick-root >/dev/null 2>&1 < /dev/null & disown' || setup_error "nohup"
sleep 6
[ -s $W/tick-container ] && [ -s $W/tick-root ] || setup_error "tickers not writing"
F=()
procs() { ps -eo pid,args | grep -F "$AIRLOCK_HOME" | grep -v -e grep -e 'airlock bridge' ; }
airlock stop pers1 >&2 || F+=("stop failed")
a=$(cat $W/tick-container $W/tick-root); sleep 5; b=$(cat $W/tick-container $W/tick-root)
[ "$a" = "$b" ] || F+=("workspace still written after stop")
echo "after stop, processes for this AIRLOCK_HOME:" >&2; procs >&2
procs | grep -q qemu && F+=("qemu still running after stop")
mount | grep -F "$AIRLOCK_HOME" >&2 && F+=("mount left after stop")
airlock start pers1 >&2 || F+=("start failed")
for i in $(seq 60); do c=$(cat $W/tick-container 2>/dev/null); [ "$c" != "$b" ] && break; sleep 2; done
echo "after start the container ticks again (inside the VM, expected): $(cat $W/tick-container)" >&2
airlock rm --force pers1 >&2 || F+=("rm failed")
sleep 2
a=$(cat $W/tick-container $W/tick-root); sleep 5; b=$(cat $W/tick-container $W/tick-root)
[ "$a" = "$b" ] || F+=("workspace still written after rm")
procs >&2; procs | grep -q . && F+=("processes left after rm: $(procs | tr '\n' ' ')")
mount | grep -F "$AIRLOCK_HOME" >&2 && F+=("mount left after rm")
[ -e $AIRLOCK_HOME/vm/microvm/pers1 ] && F+=("state dir left after rm: $(ls $AIRLOCK_HOME/vm/microvm/pers1)")
ls -la $W >&2
git -C $W status --short >&2
printf 'finding: %s\n' "${F[@]}" >&2
[ ${#F[@]} -eq 0 ] && defended || succeeded
