# Waiting helpers for the guest halves of the proofs (POSIX sh: busybox in the blevm guest, bash in
# the systemd proof's root; sourced). Each wait is bounded by wall time and checks its condition
# again every 0.1 s; a file that does not exist yet counts as empty (a background job's output file
# is created when the job starts, which may be after the wait does). The variables they use begin
# with gw_. Tested on the host under busybox sh by ci/tests/guest-wait-test.sh.

# uptime_cs: the time since boot in hundredths of a second (/proc/uptime), a clock that never
# steps back.
uptime_cs() {
    read -r gw_uptime gw_rest </proc/uptime
    # The kernel prints seconds with two decimals; 1NN - 100 reads them without octal's leading 0.
    echo $((${gw_uptime%.*} * 100 + 1${gw_uptime#*.} - 100))
}
# wait_until SECONDS CMD...: until CMD succeeds (its output discarded); status 1 when SECONDS (whole
# seconds) have passed without it. CMD runs at least once, also with 0 seconds.
wait_until() {
    gw_deadline=$(($(uptime_cs) + $1 * 100))
    shift
    until "$@" >/dev/null 2>&1; do
        [ "$(uptime_cs)" -lt "$gw_deadline" ] || return 1
        sleep 0.1
    done
    return 0
}
# count PATTERN FILE: the number of lines of FILE matching PATTERN; 0 when FILE is missing.
count() {
    gw_count=$(grep -c -- "$1" "$2" 2>/dev/null)
    echo "${gw_count:-0}"
}
# has_count PATTERN FILE N: FILE has at least N lines matching PATTERN.
has_count() { [ "$(count "$1" "$2")" -ge "$3" ]; }
# wait_count PATTERN FILE N [SECONDS]: until FILE has at least N lines matching PATTERN (default
# 60 s); status 1 when the time runs out.
wait_count() { wait_until "${4:-60}" has_count "$1" "$2" "$3"; }
# has_ended PID: no process PID is left (signal 0 cannot reach it).
has_ended() { ! kill -0 "$1" 2>/dev/null; }
# wait_gone PID [SECONDS]: until the process has ended (default 60 s); status 1 when it has not.
wait_gone() { wait_until "${2:-60}" has_ended "$1"; }
