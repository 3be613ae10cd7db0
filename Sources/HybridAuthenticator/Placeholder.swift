// HybridAuthenticator: placeholder until its issue lands.
