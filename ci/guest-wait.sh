# Waiting helpers for the guest halves of the proofs (busybox sh, sourced). Each wait is bounded
# and checks its condition again every 0.1 s; a file that does not exist yet counts as empty (a
# background job's output file is created when the job starts, which may be after the wait does).
# Tested on the host under busybox sh by ci/tests/guest-wait-test.sh.

# count PATTERN FILE: the number of lines of FILE matching PATTERN; 0 when FILE is missing.
count() {
    gw_count=$(grep -c -- "$1" "$2" 2>/dev/null)
    echo "${gw_count:-0}"
}
# wait_count PATTERN FILE N [SECONDS]: until FILE has at least N lines matching PATTERN (default
# 60 s); status 1 when the time runs out.
wait_count() {
    gw_ticks=0
    while [ "$(count "$1" "$2")" -lt "$3" ]; do
        gw_ticks=$((gw_ticks + 1)); [ $gw_ticks -gt $((${4:-60} * 10)) ] && return 1; sleep 0.1
    done
    return 0
}
# wait_gone PID [SECONDS]: until the process has ended (default 60 s); status 1 when it has not.
wait_gone() {
    gw_ticks=0
    while kill -0 "$1" 2>/dev/null; do
        gw_ticks=$((gw_ticks + 1)); [ $gw_ticks -gt $((${2:-60} * 10)) ] && return 1; sleep 0.1
    done
    return 0
}
