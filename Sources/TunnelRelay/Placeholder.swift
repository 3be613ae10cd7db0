// TunnelRelay: placeholder until its issue lands.
