import Testing
@testable import HybridClient
