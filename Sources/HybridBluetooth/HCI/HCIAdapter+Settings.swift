import CBlueZ

#if canImport(Glibc)
    import Glibc
#endif

extension HCIAdapter {
    /// The adapter's settings as the kernel keeps them, read over the management channel (Read
    /// Controller Information; allowed without privilege). Blocking, at most `timeoutMilliseconds`.
    ///
    /// The controller's command set says what it *could* do; these settings say what the kernel
    /// lets it do now. An LE L2CAP connect on an adapter whose LE setting is off fails at once with
    /// ECONNREFUSED, which looks like a phone that refused.
    /// - Throws: ``BluetoothError`` when the socket cannot be opened, written or read, the kernel
    ///   refuses the command, or no answer comes in time.
    func kernelSettings(timeoutMilliseconds: Int32 = 1000) throws(BluetoothError) -> ManagementSettings {
        let operation = "read \(name)'s settings (mgmt)"
        let descriptor = CBlueZ_openManagement()
        guard descriptor >= 0 else { throw .fromErrno(errno, operation: operation, adapter: name) }
        defer { close(descriptor) }
        let index = UInt16(truncatingIfNeeded: id)
        let command = ManagementMessage.readInformation(index: index)
        let written = command.withUnsafeBytes { write(descriptor, $0.baseAddress, $0.count) }
        guard written == command.count else { throw .fromErrno(errno, operation: operation, adapter: name) }
        let deadline = ContinuousClock.now + .milliseconds(Int(timeoutMilliseconds))
        while ContinuousClock.now < deadline {
            var entry = pollfd(fd: descriptor, events: Int16(POLLIN), revents: 0)
            let ready = poll(&entry, 1, HCIConnection.milliseconds(until: deadline))
            if ready < 0 && errno != EINTR { throw .fromErrno(errno, operation: operation, adapter: name) }
            guard ready > 0 else { continue }
            var buffer = [UInt8](repeating: 0, count: 512)
            let count = buffer.withUnsafeMutableBytes { read(descriptor, $0.baseAddress, $0.count) }
            guard count > 0 else { throw .fromErrno(errno, operation: operation, adapter: name) }
            switch try ManagementMessage.informationReply(to: index, from: Array(buffer[0..<count])) {
            case .settings(let settings): return settings
            case .failed(let status):
                throw .unavailable(reason: "\(operation): the kernel answered status \(status)")
            case .unrelated: continue
            }
        }
        throw .unavailable(reason: "\(operation): no answer within \(timeoutMilliseconds) ms")
    }
}
