/// An error of a type the catching code does not classify (a dependency's internal error), kept as
/// its type name and its own text so that a user still sees what happened. Only catch-alls use it:
/// every cause the code knows has its own typed case.
public struct UnexpectedError: Error, Hashable, Sendable, CustomStringConvertible {
    /// The error's type, e.g. `NIOCore.ChannelError`.
    public let typeName: String
    /// The error as it describes itself.
    public let description: String

    /// Captures `error`'s type and text.
    public init(_ error: any Error) {
        typeName = String(reflecting: type(of: error))
        description = "\(error)"
    }
}
