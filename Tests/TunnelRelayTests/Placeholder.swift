import Testing
@testable import TunnelRelay
