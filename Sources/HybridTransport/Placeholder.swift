// HybridTransport: placeholder until its issue lands.
