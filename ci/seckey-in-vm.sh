# Guest half of the security-key proof (busybox sh), started by ci/run-seckey-proof.sh through
# `blevm-run -S`: btvirt (hci0 + hci1), tunnel-relay on loopback, and the key as installed:
# hybrid-key-broker started as its units start it (ci/broker/guest-broker.sh reads the unit
# files) owns /dev/uhid and, asked by uid 1001's `hybrid-security-key --broker-socket ... --ble hci
# --adapter hci1` (the active session of a fake logind), creates the FIDO device and hands it to
# that user. For every QR code the agent prints, a fresh `hybrid-authenticator --ble hci --adapter
# hci0 --yes` (encrypted store) is the phone. Then libfido2's tools and OpenSSH, as uid 1001, use
# the device: fido2-token -L/-I, fido2-cred -M (resident and not) + -V, fido2-assert -G + -V,
# ssh-keygen -t ecdsa-sk, -Y sign, -Y verify.
# Prints SECKEY-MARK lines (host timestamps turn them into durations) and "seckey-in-vm: PASS".
. /usr/bin/blevm-lib.sh

mark() { echo "SECKEY-MARK $1"; }
w=/tmp/seckey
rm -rf "$w" && mkdir -p "$w"
fail() {
    echo "seckey-in-vm: FAIL: $*" >&2
    for f in broker.log bridge.out bridge.err phone.log; do [ -f "$w/$f" ] && { echo "---- $f" >&2; sed 's/^/   /' "$w/$f" >&2; }; done
    exit 1
}

# ceremony_wait_line FILE SED-EXPRESSION (waits up to 60 s), shared with the ceremony proof.
. /blevm/work/ceremony-in-vm.sh
. /blevm/work/guest-broker.sh

mark "guest userspace ready"
blevm_btvirt 2 || fail "btvirt did not create hci0 and hci1"
blevm_up hci0 hci1 || fail "hci0/hci1 did not come up"
[ -e /dev/uhid ] || fail "/dev/uhid missing (boot with BLEVM_KARGS=blevm.modules=uhid,hid_generic)"
# As udev leaves it with our rule: root's alone.
chown 0:0 /dev/uhid && chmod 600 /dev/uhid
mark "btvirt + uhid"

broker_chroot /chroot
broker_logind /chroot
broker_start "$w/broker.log"
mark "fake logind (uid 1001 active) + broker socket"

/usr/local/bin/tunnel-relay --host 127.0.0.1 --port 0 >"$w/relay.out" 2>"$w/relay.err" &
port=$(ceremony_wait_line "$w/relay.out" 's/.*listening on [0-9.]*:\([0-9][0-9]*\).*/\1/p') || fail "tunnel-relay did not start"

# Everything the user's programs write lives in files of the user's own.
broker_user 1001 "$w"
user_dir=$w/1001/home
# Raw HCI needs CAP_NET_RAW/NET_ADMIN, which bluetoothd has on a desktop (where the agent uses
# --ble bluez); the agent keeps no other capability.
BROKER_AGENT_CAPS=+net_raw,+net_admin broker_agent 1001 "$w" bridge --ble hci --adapter hci1 --json --no-notifications \
    --no-window --timeout "${SECKEY_CEREMONY_TIMEOUT:-600}" --tunnel-server "0=ws://127.0.0.1:$port"
bridge=$agent_pid
dev=$(broker_key "$w/bridge.out") || fail "the agent did not report ready with a hidraw node"
broker_owned "$dev" 1001
grep -q "^CapEff:[[:space:]]*0000000000000001" /proc/$broker_pid/status ||
    fail "the broker's effective capabilities are not CAP_CHOWN alone: $(grep ^Cap /proc/$broker_pid/status | tr '\n' ' ')"
mark "the broker handed uid 1001 $dev (owner 1001, mode 600)"
as_user() { broker_as 1001 env HOME="$user_dir" "$@"; }
# ssh-keygen looks its user up (getpwuid); the fido2 tools need no entry.
grep -q '^alice:' /etc/passwd 2>/dev/null || echo "alice:x:1001:1001:Alice:$user_dir:/bin/sh" >>/etc/passwd

# The phone: one hybrid-authenticator per QR code the bridge shows, in order. fido2-cred -M cannot
# print a credential with "none" attestation (what phones send: no signature, "output error"), so
# the libfido2 part uses packed self attestation; the OpenSSH part then switches to "none" through
# $w/attestation-none, as a real phone answers.
(
    n=1
    while kill -0 $bridge 2>/dev/null; do
        qr=$(sed -n '/"event":"qr"/p' "$w/bridge.out" | sed -n "${n}p" | sed -n 's/.*"url":"\(FIDO:\/[0-9]*\)".*/\1/p')
        if [ -z "$qr" ]; then sleep 0.1; continue; fi
        echo "== phone: ceremony $n" >>"$w/phone.log"
        attestation=--packed-attestation
        [ -f "$w/attestation-none" ] && attestation=
        # An encrypted store (only it verifies the user, as phones do) at the cheapest scrypt cost
        # the format accepts (N=2^14): at the production cost each ceremony's unlock took 20-30 s
        # under TCG. SECKEY_PROOF_STORE=plaintext: a quicker local run of the no-UV paths.
        store=--insecure-fast-store-kdf
        [ "${SECKEY_PROOF_STORE:-encrypted}" = plaintext ] && store=--insecure-plaintext-store
        # The QR text on standard input ('-'): an argument would show it to every local user (ps).
        printf '%s\n' "$qr" | HYBRID_AUTHENTICATOR_PASSPHRASE=seckey-proof HYBRID_ALLOW_INSECURE_FAST_KDF=1 \
            /usr/local/bin/hybrid-authenticator - \
            --tunnel-url "ws://127.0.0.1:$port" --ble hci --adapter hci0 --yes --json $attestation $store \
            --store "$w/passkeys.json" >>"$w/phone.log" 2>&1
        echo "== phone: ceremony $n exit $?" >>"$w/phone.log"
        n=$((n + 1))
    done
) &
phone=$!

step() { echo "---- $*"; }

step "fido2-token -L"
as_user fido2-token -L | tee "$w/list" || fail "fido2-token -L failed"
grep -q "^$dev" "$w/list" || fail "fido2-token -L does not list $dev"
step "fido2-token -I $dev"
as_user fido2-token -I "$dev" | tee "$w/info" || fail "fido2-token -I failed"
grep -q "aaguid: 5e6804ee05fb4948878aecf41b5c6b48" "$w/info" || fail "getInfo lacks our AAGUID"
grep -q "version strings: .*FIDO_2_0" "$w/info" || fail "getInfo lacks FIDO_2_0"
mark "fido2-token -L and -I"

# Credential input: client data hash (base64), RP ID, user name, user ID (base64).
cdh() { head -c 32 /dev/urandom | base64; }
for kind in plain resident; do
    flag=; [ $kind = resident ] && flag=-r
    printf '%s\n%s\n%s\n%s\n' "$(cdh)" "seckey.example" "alice-$kind" "$(head -c 16 /dev/urandom | base64)" >"$user_dir/$kind.cred.in"
    step "fido2-cred -M $flag ($kind)"
    as_user fido2-cred -M $flag -i "$user_dir/$kind.cred.in" -o "$user_dir/$kind.cred.out" "$dev" es256 || fail "fido2-cred -M $flag failed"
    mark "fido2-cred -M $kind"
    step "fido2-cred -V ($kind)"
    as_user fido2-cred -V -i "$user_dir/$kind.cred.out" -o "$user_dir/$kind.pub" es256 || fail "fido2-cred -V rejected the $kind credential"
    # Assertion input: client data hash, RP ID, credential ID (from the credential's 5th line).
    printf '%s\n%s\n%s\n' "$(cdh)" "seckey.example" "$(sed -n 5p "$user_dir/$kind.cred.out")" >"$user_dir/$kind.assert.in"
    step "fido2-assert -G ($kind)"
    as_user fido2-assert -G -i "$user_dir/$kind.assert.in" -o "$user_dir/$kind.assert.out" "$dev" || fail "fido2-assert -G failed ($kind)"
    mark "fido2-assert -G $kind"
    step "fido2-assert -V ($kind)"
    as_user fido2-assert -V -i "$user_dir/$kind.assert.out" "$user_dir/$kind.pub" es256 || fail "fido2-assert -V rejected the $kind assertion"
done

step "ssh-keygen -t ecdsa-sk (the phone attests with \"none\", as phones do)"
touch "$w/attestation-none"
export SSH_SK_HELPER=/usr/lib/openssh/ssh-sk-helper
key=$user_dir/id_ecdsa_sk
as_user mkdir -p "$user_dir/.ssh"
if ! as_user ssh-keygen -vvv -t ecdsa-sk -f "$key" -N "" -C seckey-proof </dev/null >"$w/enroll-none.log" 2>&1; then
    # Known: this OpenSSH rejects an enrollment whose attestation has no signature ("none").
    echo "ssh-keygen -t ecdsa-sk with \"none\" attestation failed:"; grep -v "^debug3" "$w/enroll-none.log" | tail -n 15 | sed 's/^/   /'
    echo "SSH-NONE-ATTESTATION: rejected"
    rm -f "$w/attestation-none" "$key" "$key.pub"
    step "ssh-keygen -t ecdsa-sk (packed self attestation)"
    as_user ssh-keygen -t ecdsa-sk -f "$key" -N "" -C seckey-proof </dev/null || fail "ssh-keygen -t ecdsa-sk failed"
else
    echo "SSH-NONE-ATTESTATION: accepted"
fi
mark "ssh-keygen -t ecdsa-sk"
echo "signed by the phone through the bridge" >"$user_dir/message"
step "ssh-keygen -Y sign"
as_user ssh-keygen -Y sign -f "$key" -n file "$user_dir/message" </dev/null || fail "ssh-keygen -Y sign failed"
mark "ssh-keygen -Y sign"
echo "proof $(cat "$key.pub")" >"$w/allowed_signers"
step "ssh-keygen -Y verify"
ssh-keygen -Y verify -f "$w/allowed_signers" -I proof -n file -s "$user_dir/message.sig" <"$user_dir/message" || fail "ssh-keygen -Y verify rejected the signature"

kill $bridge 2>/dev/null
wait $bridge
echo "---- bridge events"
sed 's/^/   /' "$w/bridge.out"
kill $phone 2>/dev/null
done_count=$(grep -c '"event":"done"' "$w/bridge.out")
echo "seckey-in-vm: PASS ($done_count requests answered by the phone)"
