import Foundation
import HAProxySupport
import NIOCore
import NIOPosix

/// A proxy (nginx or HAProxy) started for the benchmark from a generated configuration, or
/// HAProxy running deploy/haproxy.cfg in front of relay instances. Its CPU time is read from
/// /proc for the whole process tree (master and workers). HAProxy listens on a socket bound
/// here and inherited as its standard input (`bind fd@0`), so no other process can take its port.
final class ProxyProcess {
    let name: String
    let port: Int
    let process = Process()
    /// The fleet balancer's runtime API (nil for the other proxies).
    let runtimeAPI: HAProxyRuntimeAPI?
    private let directory: URL

    private init(name: String, port: Int, directory: URL, runtimeAPI: HAProxyRuntimeAPI? = nil) {
        self.name = name
        self.port = port
        self.directory = directory
        self.runtimeAPI = runtimeAPI
    }

    /// nginx (one worker process) proxying WebSocket upgrades on a fresh port to 127.0.0.1:`upstreamPort`.
    static func nginx(upstreamPort: Int, binary: String = "/usr/sbin/nginx") async throws -> ProxyProcess {
        let port = try await freePort()
        let directory = try temporaryDirectory("nginx")
        let config = """
            worker_processes 1;
            daemon off;
            pid \(directory.path)/nginx.pid;
            error_log \(directory.path)/error.log error;
            events { worker_connections 20000; }
            http {
                access_log off;
                client_body_temp_path \(directory.path);
                proxy_temp_path \(directory.path);
                fastcgi_temp_path \(directory.path);
                uwsgi_temp_path \(directory.path);
                scgi_temp_path \(directory.path);
                tcp_nodelay on;
                server {
                    listen 127.0.0.1:\(port);
                    location / {
                        proxy_pass http://127.0.0.1:\(upstreamPort);
                        proxy_http_version 1.1;
                        proxy_set_header Upgrade $http_upgrade;
                        proxy_set_header Connection "upgrade";
                        proxy_read_timeout 1h;
                        proxy_send_timeout 1h;
                    }
                }
            }
            """
        let path = directory.appendingPathComponent("nginx.conf")
        try (config + "\n").write(to: path, atomically: true, encoding: .utf8)
        let proxy = ProxyProcess(name: "nginx", port: port, directory: directory)
        try await proxy.start(binary: binary, arguments: ["-p", directory.path, "-c", path.path], environment: [:])
        return proxy
    }

    /// HAProxy (one thread) proxying WebSocket upgrades on a fresh port to 127.0.0.1:`upstreamPort`.
    static func haproxy(upstreamPort: Int, binary: String = "/usr/sbin/haproxy") async throws -> ProxyProcess {
        let listener = try InheritedListener()
        let directory = try temporaryDirectory("haproxy")
        let config = """
            global
                maxconn 9800
                nbthread 1
            defaults
                mode http
                timeout connect 5s
                timeout client 60s
                timeout server 60s
                timeout tunnel 1h
            frontend echo_front
                bind fd@0
                default_backend echo_back
            backend echo_back
                server echo 127.0.0.1:\(upstreamPort)
            """
        let path = directory.appendingPathComponent("haproxy.cfg")
        try (config + "\n").write(to: path, atomically: true, encoding: .utf8)
        let proxy = ProxyProcess(name: "haproxy", port: listener.port, directory: directory)
        try await proxy.start(binary: binary, arguments: ["-W", "-db", "-f", path.path], environment: [:], listener: listener)
        return proxy
    }

    /// This executable as a SwiftNIO byte forwarder (``NIOByteProxy``) to 127.0.0.1:`upstreamPort`.
    static func nioBytes(upstreamPort: Int) async throws -> ProxyProcess {
        let listener = try InheritedListener()
        let proxy = ProxyProcess(name: "nio-bytes", port: listener.port, directory: try temporaryDirectory("nio-bytes"))
        try await proxy.start(
            binary: try FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe"), arguments: ["--byte-proxy-upstream", String(upstreamPort)], environment: [:],
            listener: listener
        )
        return proxy
    }

    /// HAProxy running `config` (deploy/haproxy.cfg) in front of relay instances on `instancePorts`
    /// (slot k is routing prefix k+1; the file's slots beyond the instances point at the first).
    static func fleetBalancer(config: String, instancePorts: [Int], binary: String = "/usr/sbin/haproxy") async throws -> ProxyProcess {
        let listener = try InheritedListener()
        let directory = try temporaryDirectory("fleet")
        let statsSocket = directory.appendingPathComponent("stats.sock").path
        var environment = ["RELAY_FRONTEND": "fd@0", "RELAY_STATS_SOCKET": statsSocket]
        for slot in 0..<max(3, instancePorts.count) {
            let instancePort = slot < instancePorts.count ? instancePorts[slot] : instancePorts[0]
            environment["RELAY_INSTANCE_" + (slot < 9 ? "0" : "") + String(slot + 1, radix: 16)] = "127.0.0.1:\(instancePort)"
        }
        let proxy = ProxyProcess(
            name: "haproxy-fleet", port: listener.port, directory: directory, runtimeAPI: HAProxyRuntimeAPI(socketPath: statsSocket)
        )
        try await proxy.start(binary: binary, arguments: ["-W", "-db", "-f", config], environment: environment, listener: listener)
        return proxy
    }

    /// Starts the proxy; with `listener`, the proxy inherits it as its standard input.
    private func start(binary: String, arguments: [String], environment: [String: String], listener: InheritedListener? = nil) async throws {
        process.executableURL = URL(fileURLWithPath: binary)
        process.arguments = arguments
        process.environment = ProcessInfo.processInfo.environment.merging(environment) { $1 }
        if let listener { process.standardInput = FileHandle(fileDescriptor: listener.descriptor, closeOnDealloc: false) }
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle(forWritingAtPath: "/dev/stderr")
        defer { listener?.close() }
        try process.run()
        // Ready once the port accepts (polled; bounded).
        for _ in 0..<200 {
            if let channel = try? await ClientBootstrap(group: MultiThreadedEventLoopGroup.singleton)
                .connect(host: "127.0.0.1", port: port).get() {
                try? await channel.close()
                return
            }
            guard process.isRunning else { break }
            try await Task.sleep(for: .milliseconds(50))
        }
        stop()
        throw BenchError.relayDidNotStart("\(name) did not listen on \(port)")
    }

    /// CPU seconds used so far by the proxy's master and workers.
    var cpuSeconds: Double {
        ([process.processIdentifier] + Self.children(of: process.processIdentifier))
            .reduce(0) { $0 + RelayProcess.cpuSeconds(of: $1) }
    }

    /// Direct children of `pid` (nginx and HAProxy workers), from /proc.
    static func children(of pid: Int32) -> [Int32] {
        let text = (try? String(contentsOfFile: "/proc/\(pid)/task/\(pid)/children", encoding: .utf8)) ?? ""
        return text.split(separator: " ").compactMap { Int32($0.trimmingCharacters(in: .whitespacesAndNewlines)) }
    }

    func stop() {
        if process.isRunning {
            process.terminate()
            process.waitUntilExit()
        }
        try? FileManager.default.removeItem(at: directory)
    }

    static func temporaryDirectory(_ label: String) throws -> URL {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("relay-bench-\(label)-\(UUID().uuidString.prefix(8))")
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
        return url
    }

    static func freePort() async throws -> Int {
        let probe = try await ServerBootstrap(group: MultiThreadedEventLoopGroup.singleton).bind(host: "127.0.0.1", port: 0).get()
        let port = probe.localAddress?.port ?? 0
        try await probe.close()
        return port
    }
}
