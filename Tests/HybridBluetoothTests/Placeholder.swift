import Testing
@testable import HybridBluetooth
