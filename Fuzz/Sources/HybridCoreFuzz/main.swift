import FuzzDriver

runFuzzer(FuzzTargets.all)
