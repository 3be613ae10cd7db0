#!/usr/bin/env bash
# Builds the libFuzzer targets (Fuzz/Package.swift) and runs each for SECONDS (default 60), seeded
# from the shared vectors. Prints a Markdown table: executions, coverage (edges) and features per
# target, and crashes. Exits non-zero if any target crashed; the crashing input is kept under
# .build-fuzz/artifacts/TARGET/ (copy it into the regression tests).
#   scripts/fuzz.sh [SECONDS] [TARGET...]
set -euo pipefail
cd "$(dirname "$0")/.."

seconds="${1:-60}"
shift || true
vectors="${HYBRID_VECTORS_DIR:-../shared/vectors}"
scratch=.build-fuzz
# -sanitize=fuzzer adds libFuzzer's coverage instrumentation, address adds ASan; lld, because gold
# fails on the fuzzer runtime's symbols (Fuzz/Sources/HybridCoreFuzz/main.swift).
flags=(-c release -Xswiftc -sanitize=fuzzer,address -Xswiftc -use-ld=lld)

start=$(date +%s)
swift build --package-path Fuzz --scratch-path "$scratch" "${flags[@]}" >&2
echo "fuzz build: $(( $(date +%s) - start )) s" >&2
bin="$(swift build --package-path Fuzz --scratch-path "$scratch" "${flags[@]}" --show-bin-path)"

# Seeds: the shared vectors' fields (HybridCore), and the committed Fuzz/Seeds (Bluetooth: HCI
# packets from the tests' fixtures, D-Bus messages marshalled by libdbus, Fuzz/Seeds/make-dbus-seeds.c).
python3 Fuzz/seeds.py "$vectors" "$scratch/seeds" >&2
for folder in Fuzz/Seeds/*/; do
    mkdir -p "$scratch/seeds/$(basename "$folder")"
    cp "$folder"* "$scratch/seeds/$(basename "$folder")/"
done
binary_for() {
    case "$1" in
        hciEvent | dbusMessage) echo "$bin/hybrid-bluetooth-fuzz" ;;
        creationOptions | requestOptions | ctaphidPacket | ctaphidStateMachine) echo "$bin/hybrid-client-fuzz" ;;
        *) echo "$bin/hybrid-core-fuzz" ;;
    esac
}
if [ $# -gt 0 ]; then
    targets=("$@")
else
    mapfile -t targets < <(ls "$scratch/seeds")
fi

echo "| target | execs | execs/s | coverage (edges) | features | corpus | crashes |"
echo "|---|---:|---:|---:|---:|---:|---:|"
total=0
failed=0
for target in "${targets[@]}"; do
    corpus="$scratch/corpus/$target"
    artifacts="$scratch/artifacts/$target"
    log="$scratch/logs/$target.log"
    mkdir -p "$corpus" "$artifacts" "$(dirname "$log")"
    status=0
    # detect_leaks=0: LeakSanitizer counts Swift's lazily built globals (the targets' fixed keys) as
    # leaks at exit; the parsers are what is under test.
    ASAN_OPTIONS=detect_leaks=0 FUZZ_TARGET="$target" "$(binary_for "$target")" "$corpus" "$scratch/seeds/$target" \
        -max_total_time="$seconds" -print_final_stats=1 -artifact_prefix="$artifacts/" -rss_limit_mb=2048 \
        -max_len=4096 >"$log" 2>&1 || status=$?
    execs=$(grep -o 'stat::number_of_executed_units: *[0-9]*' "$log" | grep -o '[0-9]*$' | tail -n 1)
    rate=$(grep -o 'stat::average_exec_per_sec: *[0-9]*' "$log" | grep -o '[0-9]*$' | tail -n 1)
    last=$(grep -E '^#[0-9]+' "$log" | tail -n 1)
    cov=$(grep -o 'cov: [0-9]*' <<<"$last" | grep -o '[0-9]*' || echo ?)
    ft=$(grep -o 'ft: [0-9]*' <<<"$last" | grep -o '[0-9]*' || echo ?)
    corp=$(grep -o 'corp: [0-9]*' <<<"$last" | grep -o '[0-9]*' || echo ?)
    crashes=$(find "$artifacts" -type f | wc -l)
    if [ "$status" -ne 0 ] || [ "$crashes" -ne 0 ]; then
        failed=1
        [ "$crashes" -eq 0 ] && crashes="exit $status"
    fi
    total=$(( total + ${execs:-0} ))
    echo "| $target | $execs | $rate | $cov | $ft | $corp | $crashes |"
done
echo
echo "total executions: $total (${#targets[@]} targets, $seconds s each)"
exit $failed
