// HybridClient: placeholder until its issue lands.
