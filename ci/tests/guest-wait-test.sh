# ci/guest-wait.sh under the guest's shell (busybox sh; run-fault-proof.sh runs this on the host
# before the VM starts). The case that failed CI: wait_count on a file a background job has not
# created yet returned at once ("sh: bad number": grep -c printed nothing), so the fault proof
# powered the adapter off before hybrid-client had shown its QR code.
# Prints "guest-wait-test: N passed, M failed"; exit status 1 when a check failed.
. "$(dirname "$0")/../guest-wait.sh"
dir=$(mktemp -d)
passed=0 failed=0
check() {
    if [ "$2" = "$3" ]; then passed=$((passed + 1)); else failed=$((failed + 1)); echo "guest-wait-test: FAIL: $1: got '$2', want '$3'"; fi
}
check "count, missing file" "$(count x "$dir/missing")" 0
printf 'x\ny\nx\n' >"$dir/two"
check "count, two lines" "$(count x "$dir/two")" 2
check "count, no line" "$(count z "$dir/two")" 0
wait_count x "$dir/missing" 1 0 2>"$dir/err"; check "wait_count, missing file: times out" $? 1
check "wait_count, missing file: no shell error" "$(cat "$dir/err")" ""
wait_count x "$dir/two" 2 0; check "wait_count, reached" $? 0
wait_count x "$dir/two" 3 0; check "wait_count, not reached" $? 1
{ sleep 0.3; echo x >"$dir/late"; } &
wait_count x "$dir/late" 1 10; check "wait_count, a file written later" $? 0
sleep 30 & sleeper=$!
wait_gone $sleeper 0; check "wait_gone, running" $? 1
kill $sleeper; wait $sleeper 2>/dev/null
wait_gone $sleeper 1; check "wait_gone, ended" $? 0
wait_until 0 true; check "wait_until, already true" $? 0
wait_until 0 false; check "wait_until, 0 s: one try" $? 1
before=$(uptime_cs)
wait_until 1 false; check "wait_until, times out" $? 1
waited=$(($(uptime_cs) - before))
[ $waited -ge 100 ] && [ $waited -lt 300 ]; check "wait_until, waits its 1 s (waited ${waited}0 ms)" $? 0
{ sleep 0.3; : >"$dir/flag"; } &
wait_until 10 test -e "$dir/flag"; check "wait_until, a condition met later" $? 0
check "wait_until, discards CMD's output" "$(wait_until 0 echo noise)" ""
rm -rf "$dir"
echo "guest-wait-test: $passed passed, $failed failed"
[ $failed -eq 0 ]
