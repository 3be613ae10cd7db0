# Host side of the proofs that run the key broker in the blevm guest as its units start it
# (sourced by ci/run-broker-proof.sh, ci/run-seckey-proof.sh, ci/run-fault-proof.sh,
# ci/run-browser-seckey-proof.sh, ci/run-install-proof.sh; bash).
#   broker_host_check     dies (die() of the caller) unless the host has what the guest borrows
#   broker_vm_args        blevm-run arguments for ci/broker/guest-broker.sh: the host's /usr and
#                         /etc for the chroot (python3-dbusmock's fake logind), setpriv, stat, nice
#                         and systemd-socket-activate as util-*, the fake logind, the guest library and
#                         the broker's two unit files
#   broker_vm_tool_args   the same without the unit files

broker_host_check() {
    local tool
    for tool in setpriv stat nice systemd-socket-activate; do
        command -v "$tool" >/dev/null || die "$tool missing (scripts/setup.sh)"
    done
    /usr/bin/python3 -c "import dbusmock, dbus" 2>/dev/null || die "python3-dbusmock / python3-dbus missing (scripts/setup.sh)"
}

# broker_vm_tool_args: all of broker_vm_args but the unit files, for a proof that brings the units
# of what it installs (ci/run-install-proof.sh: the .deb's).
broker_vm_tool_args=(
    -s /usr:/host/usr:ro -s /etc:/host/etc:ro
    -b "$(command -v setpriv):/usr/local/bin/util-setpriv" -b "$(command -v stat):/usr/local/bin/util-stat" -b "$(command -v nice):/usr/local/bin/util-nice"
    -b "$(command -v systemd-socket-activate):/usr/local/bin/util-socket-activate"
    -f ci/broker/logind.py -f ci/broker/guest-broker.sh
)
broker_vm_args=(
    "${broker_vm_tool_args[@]}"
    -f deploy/security-key/hybrid-key-broker.service -f deploy/security-key/hybrid-key-broker.socket
)
