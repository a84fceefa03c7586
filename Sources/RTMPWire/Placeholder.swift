/// Placeholder until the module lands.
enum RTMPWirePlaceholder {}
