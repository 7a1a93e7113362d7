# tests/robustness: placeholder until the fault-injection suite lands
