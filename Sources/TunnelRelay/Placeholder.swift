// TunnelRelay: placeholder until the relay lands.
