// HybridCore's parsers (the targets live in HybridCore/Fuzz/CoreFuzzEntryPoints.swift, behind SPI, so
// that the parsers need not be public).
import FuzzDriver
@_spi(Fuzzing) import HybridCore

runFuzzer(CoreFuzzEntryPoints.all)
