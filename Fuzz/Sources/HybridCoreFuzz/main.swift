// HybridCore's and HybridCTAP's parsers (the targets live beside them, in CoreFuzzEntryPoints.swift and
// CTAPFuzzEntryPoints.swift, behind SPI, so that the parsers need not be public).
import FuzzDriver
@_spi(Fuzzing) import HybridCTAP
@_spi(Fuzzing) import HybridCore

runFuzzer(CoreFuzzEntryPoints.all.merging(CTAPFuzzEntryPoints.all) { first, _ in first })
