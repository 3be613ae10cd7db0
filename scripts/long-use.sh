#!/usr/bin/env bash
# Long use of one relay: LONG_USE_N (default 50) ceremonies of hybrid-client against
# hybrid-authenticator (simulated air, a plaintext phone store, a registration then sign-ins)
# through one tunnel-relay. Prints the relay's RSS, open descriptors and threads at its start,
# after the first 10 ceremonies, every 100 and after N, and fails when a ceremony fails or, from
# 10 to N, descriptors grow by more than 2, threads by more than 4, or RSS by more than 16 MB.
# With /usr/bin/time it also prints the peak RSS of the client and the phone of ceremony 10 and
# of the last (each ceremony's are new processes: growth there means growing state, such as the
# phone's store), failing on more than 16 MB of growth; and it fails when scanner sockets are
# left on the simulated air at the end.
# Env: LONG_USE_N.
set -euo pipefail
cd "$(dirname "$0")/.."
n=${LONG_USE_N:-50}
for product in tunnel-relay hybrid-authenticator hybrid-client; do swift build --product "$product" >/dev/null; done
bin="$(swift build --show-bin-path)"
work="$(mktemp -d)"
relay=
cleanup() { [ -n "$relay" ] && kill "$relay" 2>/dev/null; wait 2>/dev/null || true; rm -rf "$work"; }
trap cleanup EXIT
export HYBRID_SIMULATED_AIR_DIR="$work/air" HYBRID_ALLOW_SIMULATED_AIR=1
die() { echo "long-use: FAIL: $*" >&2; exit 1; }
# Peak RSS (kB) of each ceremony's client and phone, when GNU time is there.
client_timer=() phone_timer=()
if [ -x /usr/bin/time ]; then
    client_timer=(/usr/bin/time -f %M -o "$work/client.peak") phone_timer=(/usr/bin/time -f %M -o "$work/phone.peak")
fi
peaks() { [ -x /usr/bin/time ] && echo "$(tail -n 1 "$work/client.peak") $(tail -n 1 "$work/phone.peak")"; }

"$bin/tunnel-relay" --host 127.0.0.1 --port 0 >"$work/relay.out" 2>"$work/relay.err" &
relay=$!
for _ in $(seq 200); do grep -q "listening on" "$work/relay.out" && break; sleep 0.05; done
port=$(sed -n 's/.*listening on [0-9.]*:\([0-9]*\).*/\1/p' "$work/relay.out")
[ -n "$port" ] || die "tunnel-relay did not start"

sample() {
    echo "RSS $(awk '/^VmRSS/{print $2}' /proc/$relay/status) kB, $(ls /proc/$relay/fd | wc -l) fds, $(awk '/^Threads/{print $2}' /proc/$relay/status) threads"
}
numbers() { awk '/^VmRSS/{r=$2} /^Threads/{t=$2} END{print r, t}' /proc/$relay/status; ls /proc/$relay/fd | wc -l; }
challenge() { python3 -c 'import base64,os; print(base64.urlsafe_b64encode(os.urandom(32)).rstrip(b"=").decode())'; }
user_id=$(challenge)
cat >"$work/create.json" <<JSON
{"challenge":"$(challenge)","rp":{"id":"example.com","name":"Example"},"user":{"id":"$user_id","name":"alice","displayName":"Alice"},"pubKeyCredParams":[{"type":"public-key","alg":-7}],"authenticatorSelection":{"residentKey":"discouraged","userVerification":"discouraged"}}
JSON

ceremony() {
    local operation=$1 options=$2
    # Emptied before the client starts: the client's own redirection runs in the forked child and
    # may come after the loop below first reads the file, which then still held the previous
    # ceremony's QR code; the phone answered that one and this client timed out.
    : >"$work/events"
    "${client_timer[@]}" "$bin/hybrid-client" "$operation" --options "$options" --origin https://example.com --ble sim --json --timeout 60 \
        --linger 0 --tunnel-server "0=ws://127.0.0.1:$port" >"$work/out.json" 2>"$work/events" &
    local client=$! qr=
    for _ in $(seq 400); do
        qr=$(sed -n 's/.*"url":"\(FIDO:[^"]*\)".*/\1/p' "$work/events" | head -n 1 | tr -d '\\')
        [ -n "$qr" ] && break
        sleep 0.05
    done
    [ -n "$qr" ] || { pkill -P $client; kill $client; die "no QR code: $(cat "$work/events")"; }
    printf '%s\n' "$qr" | "${phone_timer[@]}" "$bin/hybrid-authenticator" - --tunnel-url "ws://127.0.0.1:$port" --ble sim --yes --json \
        --insecure-plaintext-store --store "$work/passkeys.json" >"$work/phone" 2>&1 &
    local phone=$!
    wait $client || die "ceremony $operation failed: $(tail -n 3 "$work/events"); the phone: $(tail -n 5 "$work/phone")"
    wait $phone || true
}

echo "== relay at start: $(sample)"
start=$EPOCHREALTIME
ceremony create "$work/create.json"
credential=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["id"])' "$work/out.json")
i=2
while [ $i -le "$n" ]; do
    printf '{"challenge":"%s","rpId":"example.com","allowCredentials":[{"type":"public-key","id":"%s"}],"userVerification":"discouraged"}\n' \
        "$(challenge)" "$credential" >"$work/get.json"
    ceremony get "$work/get.json"
    if [ $i -eq 10 ]; then
        echo "== relay after 10 ceremonies: $(sample)"
        read -r rss10 threads10 < <(numbers | head -n 1); fds10=$(numbers | tail -n 1)
        peaks10=$(peaks) || true
    elif [ $((i % 100)) -eq 0 ] && [ $i -lt "$n" ]; then
        echo "== relay after $i ceremonies: $(sample)"
    fi
    i=$((i + 1))
done
echo "== relay after $n ceremonies: $(sample) ($(awk -v a="$start" -v b="$EPOCHREALTIME" 'BEGIN{printf "%.1f", b-a}') s)"
if [ "$n" -ge 10 ]; then
    read -r rss threads < <(numbers | head -n 1); fds=$(numbers | tail -n 1)
    [ $((fds - fds10)) -le 2 ] || die "the relay's descriptors grew from $fds10 to $fds"
    [ $((threads - threads10)) -le 4 ] || die "the relay's threads grew from $threads10 to $threads"
    [ $((rss - rss10)) -le 16384 ] || die "the relay's RSS grew from $rss10 kB to $rss kB"
    if [ -n "${peaks10:-}" ]; then
        read -r client10 phone10 <<<"$peaks10"; read -r client_n phone_n <<<"$(peaks)"
        echo "== peak RSS of ceremony 10's and ceremony $n's processes: client $client10 kB, $client_n kB; phone $phone10 kB, $phone_n kB"
        [ $((client_n - client10)) -le 16384 ] || die "the client's peak RSS grew from $client10 kB to $client_n kB"
        [ $((phone_n - phone10)) -le 16384 ] || die "the phone's peak RSS grew from $phone10 kB to $phone_n kB"
    fi
fi
left=$(find "$work/air" -mindepth 1 | wc -l)
[ "$left" -eq 0 ] || die "$left scanner sockets left on the simulated air: $(ls "$work/air")"
echo "long-use: PASS ($n ceremonies through one relay)"
