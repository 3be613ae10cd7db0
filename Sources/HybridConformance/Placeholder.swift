// HybridConformance: placeholder until its issue lands.
