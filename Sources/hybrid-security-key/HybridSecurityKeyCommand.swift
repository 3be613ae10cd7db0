import ArgumentParser
import Foundation
import HybridBluetooth
import HybridClient
import HybridCommandLine
import HybridCore
import HybridLocalFiles
import HybridPresentation
import HybridQRWindow
import HybridSecurityKey
import HybridUHID
import Logging

struct HybridSecurityKeyCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "hybrid-security-key",
        abstract: "Your phone as a FIDO2 security key for every program on this computer.",
        discussion: """
            Creates a virtual USB security key (/dev/uhid). Firefox, Chromium, OpenSSH (ssh-keygen -t \
            ecdsa-sk), pam_u2f and every libfido2 program see it like a plugged-in key. Each \
            registration or sign-in they send is carried to your phone over FIDO hybrid: a QR code \
            appears (in a window naming the site when a display is present, unless --no-window; in \
            this terminal; as a desktop notification and as an image file: --qr-file, else \
            $XDG_RUNTIME_DIR/hybrid-security-key-qr-PID.png when that directory is yours and private, \
            else a new private directory under $TMPDIR); scan it with the phone's camera and approve there. Runs until Ctrl-C or SIGTERM, then removes \
            the device.

            The key itself is made by the key broker (hybrid-key-broker.socket, a small system \
            service that alone may open /dev/uhid): it gives your session a key while it is the \
            active local session of a seat and removes it when you switch users or lock the screen \
            ({"event":"removed"}); the key returns when you come back. With --uhid PATH this program \
            opens the uhid device itself instead (root, or a test system without the broker). Needs \
            Bluetooth (bluetoothd, or raw HCI as root).

            With --json, one JSON object per line on stdout: {"event":"ready","hidraw":…}, \
            {"event":"qr","url":"FIDO:/…"} per phone ceremony, and one {"event":"done",…} or \
            {"event":"error","message":…} per request that reached the phone; {"event":"local",…} \
            for a request answered without the phone, {"event":"rewritten",…} for one changed on its \
            way to the phone (see docs/security-key.md, "What the key does with each request"). After the answer the \
            phone's tunnel stays open for a late update (--linger); {"event":"closed",…} tells how it \
            ended. The next request that needs the phone ends a lingering tunnel. The phone \
            ceremony's progress uses hybrid-client's event names ({"event":"waitingForApproval"}, \
            docs/client.md, "Events").
            """
    )

    @OptionGroup var bluetooth: BluetoothOptions

    @Flag(help: "Events as JSON lines on stdout.")
    var json = false

    @OptionGroup var tunnel: TunnelServerOptions

    @OptionGroup var times: CeremonyTimeOptions

    @OptionGroup var qr: QROutputOptions

    @Flag(help: "Do not show desktop notifications.")
    var noNotifications = false

    @Flag(
        inversion: .prefixedNo,
        help: "Show each ceremony's QR code in a window (with a Cancel button) when DISPLAY or WAYLAND_DISPLAY is set.")
    var window = true

    @Option(
        help: ArgumentHelp(
            "Append every CTAPHID report the programs send and the key answers to this file "
                + "(mode 0600; it holds user names and credential IDs, never the QR code), for diagnosing a host.",
            valueName: "path"))
    var traceReports: String?

    @Option(
        help: ArgumentHelp(
            "File of the credential IDs the phone returned, per site (IDs only; mode 0600). "
                + "Default: $XDG_STATE_HOME/hybrid-security-key/known-credentials (~/.local/state/... when unset).",
            valueName: "path"))
    var knownCredentials: String?

    /// The file of known credential IDs when `--known-credentials` is absent:
    /// `$XDG_STATE_HOME/hybrid-security-key/known-credentials`, where an unset, empty or relative
    /// `XDG_STATE_HOME` means `~/.local/state`.
    static func defaultKnownCredentialsPath(
        environment: [String: String] = ProcessInfo.processInfo.environment
    ) -> String {
        XDGBaseDirectory.state.path(environment: environment, homeDirectory: NSHomeDirectory)
            + "/hybrid-security-key/known-credentials"
    }

    @Option(
        help: ArgumentHelp(
            "Create the key on this uhid device node directly instead of through the key broker "
                + "(needs write access to it: root, or a system without the broker).",
            valueName: "path"))
    var uhid: String?

    @Option(help: ArgumentHelp("The key broker's socket.", valueName: "path"))
    var brokerSocket = BrokeredKey.defaultSocketPath

    @OptionGroup var log: LogOptions

    func run() async throws {
        let logger = log.logger(label: "hybrid-security-key")
        let backend = await bluetooth.backend()
        let options = HybridClientOptions(
            bluetooth: backend, timeout: times.timeoutDuration(), additionalCAFile: tunnel.caFile,
            tunnelServers: try tunnel.tunnelServerMap())
        // What the presenters and the window's Cancel start runs in the task group below.
        let tasks = ChildTasks()
        let presenter = EventPresenter(
            json: json, qr: qr.display(defaultImage: EventPresenter.defaultQRImage()),
            notifications: noNotifications ? nil : DesktopNotifications(applicationName: "Hybrid security key"),
            tasks: tasks)

        let windows = window && QRWindow.displayPresent() ? WindowPresenter(tasks: tasks) : nil
        // A key killed earlier (SIGKILL, a crash) could not delete its QR image: do it now.
        if qr.qrFile == nil {
            for path in StaleQRImages.remove(prefix: "hybrid-security-key-qr-") {
                logger.notice("removed the QR image of a key that no longer runs: \(path)")
            }
        }

        let trace: ReportTrace?
        let device: KeyDevice
        do {
            trace = try traceReports.map { path throws(PrivateFileError) in try ReportTrace(path: path) }
            device =
                try uhid.map { .direct(try UHIDDevice(path: $0, raiseReaderPriority: true)) }
                ?? .brokered(try BrokeredKey(socketPath: brokerSocket))
        } catch {
            presenter.fatal("\(error)")
            throw ExitCode(1)
        }
        defer { device.remove() }
        let knownFile = KnownCredentialsFile(path: knownCredentials ?? Self.defaultKnownCredentialsPath())
        var policy = BridgeRequestPolicy()
        do {
            policy = BridgeRequestPolicy(knownCredentials: try knownFile.load())
        } catch {
            logger.warning("known credential IDs not loaded (probes claim the first listed ID): \(error)")
        }
        let bridge = SecurityKeyBridge(
            driver: HybridPhoneDriver(runner: HybridClientRunner(options: options, logger: logger)),
            policy: policy,
            knownCredentialsChanged: { credentials in
                do { try knownFile.save(credentials) } catch {
                    logger.warning("known credential IDs not saved: \(error)")
                }
            },
            linger: times.lingerDuration,
            output: { report in
                trace?.record(report, fromProgram: false)
                do { try device.send(report) } catch { logger.warning("\(error)") }
            },
            events: { event in
                presenter.report(event)
                windows?.report(event)
            }
        )
        windows?.onCancel { tasks.start { await bridge.cancelPhoneCeremonies() } }
        // SIGINT or SIGTERM ends the loop (Interrupted, the only error it throws here); then the bridge
        // stops and the device goes, as when the device ends.
        _ = try? await cancellingOnInterrupt {
            await withTaskGroup(of: Void.self) { group in
                group.addTask { await bridge.runTimers() }
                group.addTask { await tasks.run() }
                group.addTask {
                    // The adapter going away fails the request waiting for the phone and refuses
                    // new ones at once; its return lets them through again, without a restart.
                    for await change in AdapterWatch.changes(of: backend) {
                        switch change {
                        case .vanished(let why):
                            await bridge.phoneReachabilityChanged(unreachableBecause: why.description)
                        case .returned: await bridge.phoneReachabilityChanged(unreachableBecause: nil)
                        }
                    }
                }
                group.addTask {
                    for await event in device.events() {
                        switch event {
                        case .ready(let hidraw):
                            presenter.ready(hidraw: hidraw, backend: backend.name)
                        case .output(let report):
                            trace?.record(report, fromProgram: true)
                            await bridge.reportReceived(report)
                        case .closed: await bridge.deviceClosed()
                        case .unavailable(let reason, let removed):
                            if removed {
                                await bridge.cancelPhoneCeremonies()
                                await bridge.deviceClosed()
                            }
                            presenter.unavailable(reason, removed: removed)
                        case .lost(let reason):
                            presenter.fatal(reason)
                            return
                        }
                    }
                }
                await group.next()
                group.cancelAll()
            }
        }
        await bridge.shutdown()
        device.remove()
        // systemd's Restart=on-failure starts a fresh agent, which asks a fresh broker.
        if case .brokered(let key) = device, key.lostTheBroker { throw ExitCode(1) }
        presenter.stopped()
    }
}
