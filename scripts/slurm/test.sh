#!/usr/bin/env bash
# End-to-end test of scripts/slurm/batch.sbatch on a real single-node Slurm cluster brought up on this machine
# (Debian 12: slurm-wlm 22.05 and munge, installed with apt-get when missing, through sudo when not root).
#
#   scripts/slurm/test.sh           builds mixrender (release), renders 8 short jobs from presets/ as a job
#                                   array of 4 tasks, checks every output and the merged results
#   scripts/slurm/test.sh --smoke   only brings the cluster up and runs a trivial 4-task array (debugging)
#
# Everything lives in one temporary folder: a private munge key and munged (its own socket), a slurm.conf with
# non-default ports (SlurmctldPort 16817, SlurmdPort 16818, or the next free pair), slurmctld and slurmd with
# their state, spool, logs and pid files. A Slurm or munge installation already on the machine is not touched.
# On every exit the jobs are cancelled, the daemons stopped and the folder removed (SLURM_TEST_KEEP=1 keeps it).
# Environment: MIXRENDER=path skips the build; SLURM_TEST_TIMEOUT (seconds, default 600) bounds the jobs' wait.
# The daemons run as root (SlurmUser=root): run as root, or as a user who may sudo. On failure the task logs and
# the daemons' logs are printed. The configuration and the gotchas met bringing it up: docs/slurm.md.
set -euo pipefail

root=$(cd "$(dirname "$0")/../.." && pwd)
mode=full
case "${1:-}" in
  "") ;;
  --smoke) mode=smoke ;;
  -h|--help) awk 'NR > 1 && /^#/ { sub(/^# ?/, ""); print; next } NR > 1 { exit }' "$0"; exit 0 ;;
  *) echo "usage: $0 [--smoke]" >&2; exit 2 ;;
esac

t0=$SECONDS
# A closed stdout (scripts/slurm/test.sh | head) must not kill the script before it stops the daemons: writes
# then fail instead, and set -e ends the script through the EXIT trap.
trap '' PIPE
log() { printf '[slurm-test %s +%ss] %s\n' "$(date +%T)" "$((SECONDS - t0))" "$*"; }
fail() { printf '[slurm-test %s +%ss] FAIL: %s\n' "$(date +%T)" "$((SECONDS - t0))" "$*" >&2; exit 1; }

sudo=""
[ "$(id -u)" -eq 0 ] || sudo="sudo"

# --- packages -------------------------------------------------------------------------------------------
missing=()
for p in slurm-wlm munge; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if [ ${#missing[@]} -gt 0 ]; then
  log "installing ${missing[*]}"
  $sudo env DEBIAN_FRONTEND=noninteractive apt-get update -q
  $sudo env DEBIAN_FRONTEND=noninteractive apt-get install -y -q "${missing[@]}"
  log "installed"
fi
for c in munged munge unmunge slurmctld slurmd sbatch squeue sinfo scontrol scancel; do
  command -v "$c" >/dev/null || [ -x "/usr/sbin/$c" ] || fail "$c not found after installing slurm-wlm and munge"
done
PATH=$PATH:/usr/sbin

# --- mixrender ------------------------------------------------------------------------------------------
if [ "$mode" = full ]; then
  if [ -z "${MIXRENDER:-}" ]; then
    log "building mixrender (release)"
    (cd "$root" && swift build -c release --product mixrender) || fail "swift build -c release --product mixrender failed"
    MIXRENDER="$(cd "$root" && swift build -c release --show-bin-path)/mixrender"
  fi
  [ -x "$MIXRENDER" ] || fail "no mixrender binary at $MIXRENDER"
  log "mixrender: $MIXRENDER"
  help=$("$MIXRENDER" --help 2>/dev/null || true)
  for c in batch merge-results; do
    grep -q -E "^ +$c( |\$)" <<<"$help" \
      || fail "$MIXRENDER has no '$c' command (mixrender --help lists none); scripts/slurm/test.sh --smoke tests the cluster alone"
  done
fi

# --- the temporary folder and cleanup -------------------------------------------------------------------
work=$(mktemp -d "${TMPDIR:-/tmp}/mixrender-slurm.XXXXXX")
# munged wants every folder above its socket searchable by all, and its key folder private.
chmod 755 "$work"
mkdir -m 700 "$work/munge-key" "$work/munge-lib" "$work/munge-log"
mkdir -m 755 "$work/munge-run"
mkdir -p "$work/slurm/state" "$work/slurm/spool" "$work/slurm/log" "$work/slurm/run" "$work/slurm-logs"
conf="$work/slurm/slurm.conf"
# Set in the environment of the daemons and of the submitted jobs (not of this shell), to find strays at the end.
marker="MIXRENDER_SLURM_TEST=$work"
jobid=""
ok=0

pid_of() { if [ -s "$1" ]; then cat "$1" 2>/dev/null || true; fi; }
# A daemon's process, once it has exited, can stay a zombie until PID 1 reaps it (a container's init may take a
# while): that counts as stopped.
running() { [ -n "$1" ] && $sudo kill -0 "$1" 2>/dev/null && [ "$(sed 's/.*) //' "/proc/$1/stat" 2>/dev/null | cut -d' ' -f1)" != Z ]; }
stop_pidfile() { # stop_pidfile NAME FILE: SIGTERM, up to 10 s, then SIGKILL
  local name=$1 pid t=$SECONDS
  pid=$(pid_of "$2")
  running "$pid" || return 0
  $sudo kill "$pid" 2>/dev/null || true
  for _ in $(seq 1 50); do
    if ! running "$pid"; then log "stopped $name (pid $pid) in $((SECONDS - t)) s"; return 0; fi
    sleep 0.2
  done
  log "$name (pid $pid) still running after 10 s: SIGKILL"
  $sudo kill -9 "$pid" 2>/dev/null || true
}
show_logs() {
  local f
  for f in "$work"/slurm-logs/* "$work/slurm/log/slurmctld.log" "$work/slurm/log/slurmd.log" "$work/munge-log/munged.log"; do
    [ -f "$f" ] || continue
    echo "----- $f (last 40 lines)" >&2
    $sudo tail -n 40 "$f" >&2 || true
  done
}
cleanup() {
  local rc=$?
  # Bounded (a few seconds per daemon): nothing interrupts it, and a closed stdout only loses the messages.
  trap '' INT TERM HUP PIPE
  trap - EXIT
  set +e
  if [ $rc -ne 0 ] || [ $ok -ne 1 ]; then
    [ $rc -ne 0 ] || rc=1
    show_logs
  fi
  local t=$SECONDS
  if [ -n "$jobid" ] && [ -n "$(pid_of "$work/slurm/run/slurmctld.pid")" ]; then
    SLURM_CONF=$conf timeout 10 scancel "$jobid" 2>/dev/null
  fi
  stop_pidfile slurmd "$work/slurm/run/slurmd.pid"
  stop_pidfile slurmctld "$work/slurm/run/slurmctld.pid"
  stop_pidfile munged "$work/munge-run/munged.pid"
  # Whatever is left of ours (a slurmstepd, a job's processes) carries the marker in its environment.
  local p
  for p in $($sudo grep -lszxF "$marker" /proc/[0-9]*/environ 2>/dev/null | cut -d/ -f3); do
    if [ "$p" != $$ ] && running "$p"; then
      log "killing stray process $p ($(tr '\0' ' ' <"/proc/$p/cmdline" 2>/dev/null | cut -c1-80))"
      $sudo kill -9 "$p" 2>/dev/null
    fi
  done
  if [ "${SLURM_TEST_KEEP:-0}" = 1 ]; then
    log "kept $work"
  else
    $sudo rm -rf "$work"
  fi
  log "teardown took $((SECONDS - t)) s"
  if [ $rc -eq 0 ]; then log "PASS ($mode) in $((SECONDS - t0)) s"; else log "FAILED ($mode), exit status $rc"; fi
  exit $rc
}
trap cleanup EXIT
trap 'exit 129' HUP
trap 'exit 130' INT
trap 'exit 143' TERM

# --- munge ----------------------------------------------------------------------------------------------
tb=$SECONDS
dd if=/dev/urandom of="$work/munge-key/munge.key" bs=1024 count=1 status=none
chmod 600 "$work/munge-key/munge.key"
socket="$work/munge-run/munge.socket"
start_munged() {
  env "$marker" munged "$@" --key-file="$work/munge-key/munge.key" --socket="$socket" \
    --pid-file="$work/munge-run/munged.pid" --log-file="$work/munge-log/munged.log" \
    --seed-file="$work/munge-lib/munged.seed" </dev/null
}
# munged refuses a socket or key whose folders (up to /) others may write; where TMPDIR is such a folder, --force
# makes those refusals warnings (the key itself is still private to this run).
if ! start_munged 2>"$work/munge-log/munged.err"; then
  log "munged refused to start ($(head -n 1 "$work/munge-log/munged.err")): again with --force"
  start_munged --force || fail "munged did not start, even with --force"
fi
munge -n -S "$socket" | unmunge -S "$socket" >/dev/null || fail "munge/unmunge through $socket failed"
log "munged up ($socket)"

# --- slurm.conf -----------------------------------------------------------------------------------------
host=$(hostname -s 2>/dev/null || uname -n)
host=${host%%.*}
# The node's hardware as slurmd itself sees it (a node configured with more CPUs or memory than slurmd finds
# is drained as invalid); nproc and /proc/meminfo when slurmd -C says nothing.
hw=$(slurmd -C 2>/dev/null | head -n 1 | tr ' ' '\n' | grep -E '^(CPUs|Boards|SocketsPerBoard|CoresPerSocket|ThreadsPerCore|RealMemory)=' | tr '\n' ' ' || true)
case "$hw" in
  *CPUs=*RealMemory=*) ;;
  *) hw="CPUs=$(nproc) RealMemory=$(awk '/^MemTotal:/ { print int($2 / 1024) }' /proc/meminfo)" ;;
esac
port_busy() { (exec 3<>"/dev/tcp/127.0.0.1/$1") 2>/dev/null; }
ctld_port=16817
while port_busy "$ctld_port" || port_busy "$((ctld_port + 1))"; do
  ctld_port=$((ctld_port + 2))
  [ $ctld_port -lt 16917 ] || fail "no free pair of ports in 16817-16918"
done
cat >"$conf" <<EOF
# Written by scripts/slurm/test.sh: a throw-away single-node cluster on 127.0.0.1.
ClusterName=mixrender-test
SlurmctldHost=$host(127.0.0.1)
SlurmctldPort=$ctld_port
SlurmdPort=$((ctld_port + 1))
SlurmUser=root
SlurmdUser=root
AuthType=auth/munge
CredType=cred/munge
AuthInfo=socket=$socket
StateSaveLocation=$work/slurm/state
SlurmdSpoolDir=$work/slurm/spool
SlurmctldPidFile=$work/slurm/run/slurmctld.pid
SlurmdPidFile=$work/slurm/run/slurmd.pid
SlurmctldLogFile=$work/slurm/log/slurmctld.log
SlurmdLogFile=$work/slurm/log/slurmd.log
SlurmctldDebug=info
SlurmdDebug=info
# No cgroups (containers): processes are tracked through /proc, tasks are not bound.
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
PropagateResourceLimits=NONE
SelectType=select/cons_tres
SelectTypeParameters=CR_Core
SchedulerType=sched/backfill
ReturnToService=2
MpiDefault=none
JobAcctGatherType=jobacct_gather/none
AccountingStorageType=accounting_storage/none
JobCompType=jobcomp/none
MailProg=/bin/true
KillWait=5
InactiveLimit=0
MinJobAge=600
NodeName=$host NodeAddr=127.0.0.1 $hw State=UNKNOWN
PartitionName=test Nodes=$host Default=YES MaxTime=INFINITE State=UP
EOF
export SLURM_CONF=$conf

# --- the daemons ----------------------------------------------------------------------------------------
$sudo env "$marker" SLURM_CONF="$conf" slurmctld -c -f "$conf" </dev/null >>"$work/slurm/log/slurmctld.out" 2>&1 \
  || fail "slurmctld did not start ($(tail -n 3 "$work/slurm/log/slurmctld.out" 2>/dev/null))"
$sudo env "$marker" SLURM_CONF="$conf" slurmd -f "$conf" -N "$host" </dev/null >>"$work/slurm/log/slurmd.out" 2>&1 \
  || fail "slurmd did not start ($(tail -n 3 "$work/slurm/log/slurmd.out" 2>/dev/null))"
td=$SECONDS
daemons_alive() { # fails as soon as slurmctld or slurmd has exited (their pid files appear once they have forked)
  local d pid
  for d in slurmctld slurmd; do
    pid=$(pid_of "$work/slurm/run/$d.pid")
    if [ -z "$pid" ]; then
      [ $((SECONDS - td)) -lt 10 ] || fail "$d wrote no pid file in 10 s"
    elif ! running "$pid"; then
      fail "$d (pid $pid) has exited"
    fi
  done
}
state=""
for _ in $(seq 1 120); do
  daemons_alive
  state=$(timeout 10 sinfo -h -N -n "$host" -o '%T' 2>/dev/null || true)
  [ "$state" = idle ] && break
  # INVALID (a configuration the node cannot meet, e.g. more memory than it has) does not go away by waiting.
  case "$state" in *inval*) break ;; esac
  sleep 0.5
done
[ "$state" = idle ] || fail "node $host not idle (state: '${state:-no answer}'; $(timeout 10 scontrol show node "$host" 2>&1 | grep -o 'Reason=.*' || true))"
log "cluster up in $((SECONDS - tb)) s: node $host ($hw) idle, slurmctld on 127.0.0.1:$ctld_port"

# --- the job array --------------------------------------------------------------------------------------
wait_array() { # wait_array JOBID TASKS: bounded wait, then every task COMPLETED with exit code 0:0
  local id=$1 tasks=$2 limit=${SLURM_TEST_TIMEOUT:-600} t=$SECONDS left
  while :; do
    daemons_alive
    left=$(timeout 10 squeue -h -j "$id" -o '%i %T %r' 2>/dev/null) || left="?"
    [ -n "$left" ] || break
    # A task that cannot even start (a plugin failing in slurmstepd, say) drains the node, and the rest would
    # wait for it forever.
    case "$(timeout 10 sinfo -h -N -n "$host" -o '%T' 2>/dev/null)" in
      *drain*|*down*|*fail*)
        fail "node $host went $(timeout 10 sinfo -h -N -n "$host" -o '%T (%E)' 2>/dev/null) with job $id unfinished: $(echo "$left" | tr '\n' ' ')" ;;
    esac
    [ $((SECONDS - t)) -lt "$limit" ] || fail "job $id not finished after $limit s: $(echo "$left" | tr '\n' ' ')"
    sleep 1
  done
  local records
  records=$(timeout 10 scontrol -o show job "$id") || fail "scontrol show job $id failed"
  local n bad
  n=$(grep -c 'ArrayTaskId=' <<<"$records" || true)
  [ "$n" -eq "$tasks" ] || fail "job $id: $n task records, expected $tasks: $records"
  bad=$(grep -v -E 'JobState=COMPLETED .*ExitCode=0:0' <<<"$records" | grep -o -E 'JobId=[0-9]+ ArrayJobId=[0-9]+ ArrayTaskId=[0-9]+|JobState=[A-Z_]+|ExitCode=[0-9:]+' | tr '\n' ' ' || true)
  [ -z "$bad" ] || fail "job $id: tasks not COMPLETED with exit code 0: $bad"
  log "job $id: $tasks tasks COMPLETED, exit code 0, in $((SECONDS - t)) s"
}

if [ "$mode" = smoke ]; then
  cat >"$work/smoke.sbatch" <<'EOF'
#!/usr/bin/env bash
#SBATCH --job-name=smoke
#SBATCH --output=slurm-logs/%x-%A_%a.out
set -euo pipefail
echo "$(hostname) $SLURM_ARRAY_TASK_ID $SLURM_ARRAY_TASK_MIN $SLURM_ARRAY_TASK_COUNT" >"$OUT/task-$SLURM_ARRAY_TASK_ID.txt"
EOF
  mkdir -p "$work/smoke"
  jobid=$(env "$marker" OUT="$work/smoke" sbatch --parsable --array=0-3 --chdir="$work" --export=ALL "$work/smoke.sbatch") \
    || fail "sbatch failed"
  jobid=${jobid%%;*}
  log "submitted smoke job $jobid (array 0-3)"
  wait_array "$jobid" 4
  for i in 0 1 2 3; do
    f="$work/smoke/task-$i.txt"
    [ -s "$f" ] || fail "task $i wrote nothing ($f)"
    read -r h id min count <"$f"
    [ "$id $min $count" = "$i 0 4" ] || fail "task $i wrote '$h $id $min $count', expected '<host> $i 0 4'"
    log "task $i: $(cat "$f")"
  done
  ok=1
  exit 0
fi

# Eight short jobs from the project's presets, in three formats; relative outputs land beside jobs.jsonl. Each
# renders a 20-second window of its preset's timeline (start..end), since the presets' fades are longer than 20 s.
mkdir -p "$work/jobs" "$work/results"   # out/ is made by the batch
jobs="$work/jobs/jobs.jsonl"
presets=(night storm beach campfire garden focus nap seaside)
formats=(ogg flac wav ogg flac wav ogg flac)
: >"$jobs"
for i in "${!presets[@]}"; do
  p=${presets[$i]}
  [ -f "$root/presets/$p.json" ] || fail "no preset $root/presets/$p.json"
  printf '{"id": "%s", "preset": "%s", "output": "out/%s.%s", "start": "%dm", "end": "%dm20s"}\n' \
    "$p" "$root/presets/$p.json" "$p" "${formats[$i]}" "$((i + 1))" "$((i + 1))" >>"$jobs"
done

tj=$SECONDS
jobid=$(env "$marker" MIXRENDER="$MIXRENDER" JOBS="$jobs" RESULTS_DIR="$work/results" CACHE_DIR="$work/cache" \
  sbatch --parsable --array=0-3 --chdir="$work" --export=ALL "$root/scripts/slurm/batch.sbatch") || fail "sbatch failed"
jobid=${jobid%%;*}
log "submitted job $jobid: 8 jobs in an array of 4 tasks"
wait_array "$jobid" 4
for f in "$work"/slurm-logs/*.out; do
  [ -s "$f" ] && sed "s|^|  $(basename "$f"): |" "$f"
done

# Every output decodes to exactly 20 s: mixrender info prints "rate  48000 Hz" and "duration  0:20.000 (960000 frames)".
for i in "${!presets[@]}"; do
  f="$work/jobs/out/${presets[$i]}.${formats[$i]}"
  [ -s "$f" ] || fail "job $i: no output $f"
  info=$("$MIXRENDER" info "$f" 2>&1) || fail "job $i: mixrender info $f failed: $info"
  rate=$(sed -n -E 's/^rate +([0-9]+) Hz.*/\1/p' <<<"$info")
  frames=$(sed -n -E 's/^duration .*\(([0-9]+) frames\).*/\1/p' <<<"$info")
  if [ -z "$rate" ] || [ -z "$frames" ]; then fail "job $i: no rate or frame count in mixrender info $f: $info"; fi
  [ "$frames" -eq $((rate * 20)) ] || fail "job $i: $f has $frames frames at $rate Hz, expected 20 s ($((rate * 20)))"
  log "job $i: $(basename "$f"): $(sed -n -E 's/^(format|duration) +//p' <<<"$info" | tr '\n' ' ')"
done

# Four shards of a list of eight: two jobs each, contiguous (task t renders jobs 2t and 2t+1).
for t in 0 1 2 3; do
  r="$work/results/results-$t.jsonl"
  [ -s "$r" ] || fail "task $t wrote no results ($r)"
  got=$(grep -o -E '"index" *: *[0-9]+' "$r" | grep -o -E '[0-9]+$' | sort -n | tr '\n' ' ')
  [ "$got" = "$((2 * t)) $((2 * t + 1)) " ] || fail "task $t rendered jobs '$got', expected '$((2 * t)) $((2 * t + 1))' (results-$t.jsonl: $(cat "$r"))"
done
log "results: 4 files, shard t holds jobs 2t and 2t+1"

merged="$work/merged.jsonl"
out=$("$MIXRENDER" merge-results "$work"/results/results-*.jsonl -o "$merged" --jobs "$jobs" 2>&1) \
  || fail "mixrender merge-results failed: $out"
lines=$(wc -l <"$merged")
[ "$lines" -eq 8 ] || fail "merged.jsonl has $lines lines, expected 8"
indices=$(grep -o -E '"index" *: *[0-9]+' "$merged" | grep -o -E '[0-9]+$' | sort -n | tr '\n' ' ')
[ "$indices" = "0 1 2 3 4 5 6 7 " ] || fail "merged.jsonl job indices are '$indices', expected each of 0..7 once"
oks=$(grep -c -E '"status" *: *"ok"' "$merged" || true)
[ "$oks" -eq 8 ] || fail "merged.jsonl: $oks of 8 jobs have \"status\":\"ok\": $(cat "$merged")"
log "merged results: 8 lines, indices 0..7 once each, all ok; the array took $((SECONDS - tj)) s"
ok=1
