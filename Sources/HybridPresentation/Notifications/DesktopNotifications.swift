import CDBus
import HybridDBus

/// Desktop notifications through `org.freedesktop.Notifications` on the session bus (Desktop
/// Notifications Specification 1.2): one notification, updated in place as progress changes.
/// Best effort: without a session bus or a notification server, `show(summary:body:imagePath:)`
/// returns false and nothing else happens.
public actor DesktopNotifications {
    private let applicationName: String
    private var notificationID: UInt32 = 0

    /// Notifications sent as `applicationName`.
    public init(applicationName: String) {
        self.applicationName = applicationName
    }

    /// Shows (or replaces) the notification. `imagePath` is a PNG shown beside the text (the
    /// `image-path` hint), e.g. the QR code. Returns whether the server accepted it.
    @discardableResult
    public func show(summary: String, body: String, imagePath: String? = nil, urgent: Bool = false) async -> Bool {
        let replaces = notificationID
        let name = applicationName
        let result: UInt32? = await BlockingCall.perform(name: "notify") {
            // The reply (our notification's id) is believed only from the server's own connection.
            guard let connection = try? DBusConnection(bus: DBUS_BUS_SESSION),
                (try? connection.followOwner(of: "org.freedesktop.Notifications")) != nil
            else { return nil }
            var hints: [(String, DBusValue)] = [("urgency", .byte(urgent ? 2 : 1))]
            if let imagePath { hints.append(("image-path", .string(imagePath))) }
            let arguments: [DBusValue] = [
                .string(name), .uint32(replaces), .string(""), .string(summary), .string(body),
                .array(elementSignature: "s", []), .stringVariantDictionary(hints), .int32(-1),
            ]
            guard
                let message = try? DBusMessage.methodCall(
                    destination: "org.freedesktop.Notifications", path: "/org/freedesktop/Notifications",
                    interface: "org.freedesktop.Notifications", member: "Notify", arguments: arguments),
                let reply = try? connection.call(message, timeoutMilliseconds: 2000),
                case .uint32(let id)? = reply.first
            else { return nil }
            return id
        }
        guard let result else { return false }
        notificationID = result
        return true
    }
}
