#!/usr/bin/env bash
# Builds the libFuzzer targets (Fuzz/Package.swift), replays every saved crash input
# (Fuzz/Regressions/TARGET/*), then runs each target for SECONDS (default 60), seeded from the
# shared vectors. Prints a Markdown table: executions, coverage (edges) and features per target,
# and crashes. Exits non-zero if a saved input or a target crashed; a new crashing input is kept
# under $scratch/artifacts/TARGET/ (copy it to Fuzz/Regressions/TARGET/ and into a regression test).
#   scripts/fuzz.sh [SECONDS] [TARGET...]
# FUZZ_CONFIGURATION=debug builds without optimisation, in .build-fuzz-debug: much quicker to build
# from scratch, slower to run; CI (scripts/test.sh) uses it for its short runs.
set -euo pipefail
cd "$(dirname "$0")/.."

seconds="${1:-60}"
shift || true
vectors="${HYBRID_VECTORS_DIR:-Tests/Vectors}"
configuration="${FUZZ_CONFIGURATION:-release}"
case "$configuration" in
    release) scratch=.build-fuzz ;;
    debug) scratch=.build-fuzz-debug ;;
    *) echo "FUZZ_CONFIGURATION must be release or debug" >&2; exit 2 ;;
esac
# -sanitize=fuzzer adds libFuzzer's coverage instrumentation, address adds ASan; lld, because gold
# fails on the fuzzer runtime's symbols (Fuzz/Sources/FuzzDriver/FuzzDriver.swift).
flags=(-c "$configuration" -Xswiftc -sanitize=fuzzer,address -Xswiftc -use-ld=lld)

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
        cxfDocument) echo "$bin/hybrid-authenticator-fuzz" ;;
        *) echo "$bin/hybrid-core-fuzz" ;;
    esac
}
if [ $# -gt 0 ]; then
    targets=("$@")
else
    mapfile -t targets < <(ls "$scratch/seeds")
fi
# detect_leaks=0: LeakSanitizer counts Swift's lazily built globals (the targets' fixed keys) as
# leaks at exit; the parsers are what is under test.
export ASAN_OPTIONS=detect_leaks=0

# Every input that once crashed a target, run once each: they must pass now.
failed=0
for folder in Fuzz/Regressions/*/; do
    [ -d "$folder" ] || continue
    target=$(basename "$folder")
    mapfile -t inputs < <(find "$folder" -type f ! -name '*.md' | sort)
    [ ${#inputs[@]} -gt 0 ] || continue
    if FUZZ_TARGET="$target" "$(binary_for "$target")" "${inputs[@]}" >"$scratch/regression-$target.log" 2>&1; then
        echo "regression inputs: $target: ${#inputs[@]} passed" >&2
    else
        echo "regression inputs: $target: FAILED (log: $scratch/regression-$target.log)" >&2
        tail -n 20 "$scratch/regression-$target.log" >&2
        failed=1
    fi
done

echo "| target | execs | execs/s | coverage (edges) | features | corpus | crashes |"
echo "|---|---:|---:|---:|---:|---:|---:|"
total=0
for target in "${targets[@]}"; do
    corpus="$scratch/corpus/$target"
    artifacts="$scratch/artifacts/$target"
    log="$scratch/logs/$target.log"
    mkdir -p "$corpus" "$artifacts" "$(dirname "$log")"
    status=0
    FUZZ_TARGET="$target" "$(binary_for "$target")" "$corpus" "$scratch/seeds/$target" \
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
echo "total executions: $total (${#targets[@]} targets, $seconds s each, $configuration build)"
echo "fuzz total: $(( $(date +%s) - start )) s" >&2
exit $failed
