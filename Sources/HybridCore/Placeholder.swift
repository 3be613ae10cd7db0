// HybridCore: placeholder until its issue lands.
