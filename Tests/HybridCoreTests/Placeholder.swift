import Testing
@testable import HybridCore
