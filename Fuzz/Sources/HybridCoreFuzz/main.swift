// HybridCore's and HybridCTAP's parsers (the targets live in HybridFuzzOracles, in CoreFuzzEntryPoints.swift
// and CTAPFuzzEntryPoints.swift, behind SPI, so that the parsers need not be public).
import FuzzDriver
@_spi(Fuzzing) import HybridFuzzOracles

runFuzzer(CoreFuzzEntryPoints.all.merging(CTAPFuzzEntryPoints.all) { first, _ in first })
