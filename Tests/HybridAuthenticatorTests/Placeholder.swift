import Testing
@testable import HybridAuthenticator
