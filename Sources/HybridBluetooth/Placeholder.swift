// HybridBluetooth: placeholder until its issue lands.
