// The libFuzzer driver every fuzz binary shares. SwiftPM links executables with `--defsym main=…`,
// which trips the gold linker when libFuzzer brings its own `main`; calling `LLVMFuzzerRunDriver`
// from our own main (and linking with lld, see scripts/fuzz.sh) avoids it.
import Foundation

// swift-format-ignore: AlwaysUseLowerCamelCase
// (the C symbol libFuzzer exports)
@_silgen_name("LLVMFuzzerRunDriver")
private func LLVMFuzzerRunDriver(
    _ argc: UnsafeMutablePointer<Int32>,
    _ argv: UnsafeMutablePointer<UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?>,
    _ callback: @convention(c) (UnsafePointer<UInt8>?, Int) -> Int32
) -> Int32

/// The target libFuzzer calls; a C callback cannot capture it. Until ``runFuzzer(_:)`` sets it,
/// calling it traps: an input must never pass because no target ran.
nonisolated(unsafe) private var selected: ([UInt8]) -> Void = { _ in
    fatalError("no fuzz target selected: the binary's own main (runFuzzer) did not run")
}

/// libFuzzer's usual entry point. Debug builds link executables with `--defsym main=<module>_main`,
/// and lld then also pulls libFuzzer's own `main` in, which needs this symbol; the `main` that runs
/// is still ours (``runFuzzer(_:)``), and should libFuzzer's ever run instead, every input traps.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzerTestOneInput(_ data: UnsafePointer<UInt8>?, _ size: Int) -> Int32 {
    selected(size == 0 ? [] : Array(UnsafeBufferPointer(start: data, count: size)))
    return 0
}

/// Runs libFuzzer (with this process's arguments) on the target FUZZ_TARGET names in `targets`, and
/// exits with libFuzzer's status. A target traps when an oracle fails.
public func runFuzzer(_ targets: [String: @Sendable ([UInt8]) -> Void]) -> Never {
    guard let name = ProcessInfo.processInfo.environment["FUZZ_TARGET"], let target = targets[name] else {
        FileHandle.standardError.write(
            Data("set FUZZ_TARGET to one of: \(targets.keys.sorted().joined(separator: " "))\n".utf8))
        exit(2)
    }
    selected = target
    var argc = CommandLine.argc
    var argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>? = CommandLine.unsafeArgv
    exit(
        LLVMFuzzerRunDriver(&argc, &argv) { data, size in
            selected(size == 0 ? [] : Array(UnsafeBufferPointer(start: data, count: size)))
            return 0
        })
}

/// Traps with `what` unless `condition` holds: how a target reports a failed oracle.
public func check(_ condition: Bool, _ what: StaticString) {
    if !condition { fatalError("oracle failed: \(what)") }
}
