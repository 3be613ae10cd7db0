// The libFuzzer driver. SwiftPM links executables with `--defsym main=…`, which trips the gold
// linker when libFuzzer brings its own `main`; calling `LLVMFuzzerRunDriver` from our own main (and
// linking with lld, see scripts/fuzz.sh) avoids it. FUZZ_TARGET names the parser to fuzz.
import Foundation

@_silgen_name("LLVMFuzzerRunDriver")
func LLVMFuzzerRunDriver(
    _ argc: UnsafeMutablePointer<Int32>,
    _ argv: UnsafeMutablePointer<UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?>,
    _ callback: @convention(c) (UnsafePointer<UInt8>?, Int) -> Int32
) -> Int32

guard let name = ProcessInfo.processInfo.environment["FUZZ_TARGET"], let target = FuzzTargets.all[name] else {
    let names = FuzzTargets.all.keys.sorted().joined(separator: " ")
    FileHandle.standardError.write(Data("set FUZZ_TARGET to one of: \(names)\n".utf8))
    exit(2)
}
FuzzTargets.selected = target

var argc = CommandLine.argc
var argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>? = CommandLine.unsafeArgv
exit(LLVMFuzzerRunDriver(&argc, &argv) { data, size in
    let bytes = size == 0 ? [] : Array(UnsafeBufferPointer(start: data, count: size))
    FuzzTargets.selected(bytes)
    return 0
})
